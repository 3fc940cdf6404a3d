import { render } from 'ink';
import { enterFullScreen } from '../../terminal/alternate-screen.js';
import type { PickerOutcome, VmListingSource } from '../state/picker-model.js';
import { fullScreenOutput } from './full-screen-output.js';
import { Picker } from './picker.js';

/** The terminal the picker is shown on. */
interface PickerTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

/**
 * Shows `open`'s picker until the user is done, full screen like the TUI it leads to: on the
 * alternate screen, so the user's screen and scrollback stay as they were whatever the picker
 * drew (it is as tall as the terminal, and Ink clears the whole terminal, scrollback too, for a
 * frame that tall), and a listing that arrives while Esc is handled draws no frame left behind.
 * The screen is left once Ink has written its last frame, on a crash or exit too.
 */
export async function showPicker(sources: VmListingSource[], terminal: PickerTerminal): Promise<PickerOutcome> {
  const screen = enterFullScreen(terminal.stdout, { input: terminal.stdin });
  const frames = fullScreenOutput(terminal.stdout, screen);
  try {
    let done!: (outcome: PickerOutcome) => void;
    const picked = new Promise<PickerOutcome>((resolve) => (done = resolve));
    const instance = render(<Picker sources={sources} onDone={(outcome) => done(outcome)} />, {
      stdout: frames.stdout,
      stdin: terminal.stdin,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    const outcome = await picked;
    instance.unmount();
    await instance.waitUntilExit();
    return outcome;
  } finally {
    frames.dispose();
    screen.leave();
  }
}
