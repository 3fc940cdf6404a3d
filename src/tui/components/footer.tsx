import { Text } from 'ink';
import { footerLine } from '../layout/footer-line.js';
import { KEY_HELP } from '../state/key-help.js';
import { useTerminalSize } from './hooks.js';

/** The keys that fit the terminal's width, or the add-target (or save-workspace) prompt while one is typed. */
export function Footer({ mode, draft }: { mode: 'browse' | 'add' | 'save'; draft: string }) {
  const { columns } = useTerminalSize();
  if (mode !== 'browse') {
    return (
      <Text wrap="truncate-start">
        <Text bold>{mode === 'save' ? 'save workspace as: ' : 'add target: '}</Text>
        {draft}
        <Text inverse> </Text>
        <Text dimColor>{mode === 'save' ? '  ⏎ save · esc cancel' : '  ⏎ add · esc cancel'}</Text>
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate-end">
      {footerLine(KEY_HELP, columns)}
    </Text>
  );
}
