// A yes/no question on the terminal, for the few things vconsole asks before it goes on.
import { createInterface } from 'node:readline';

/** Where a question is asked and its answer read: both must be terminals for a person to answer. */
export interface PromptTerminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Whether someone at a terminal can answer: stdin and stderr both terminals. */
export function canAsk(terminal: PromptTerminal): boolean {
  return Boolean(terminal.stdin.isTTY && terminal.stderr.isTTY);
}

/** One line read from the terminal: y or yes is yes, anything else (Enter, end of input) no. */
export async function askYesNo(question: string, terminal: PromptTerminal): Promise<boolean> {
  const lines = createInterface({ input: terminal.stdin, terminal: false });
  terminal.stderr.write(question);
  try {
    const answer = await new Promise<string>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}
