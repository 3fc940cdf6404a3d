import { Text } from 'ink';
import { footerLine } from '../layout/footer-line.js';
import { KEY_HELP } from '../state/key-help.js';
import type { UiState } from '../state/keys.js';
import { useTerminalSize } from './hooks.js';

const PROMPT: Record<'add' | 'save' | 'filter', { label: string; keys: string }> = {
  add: { label: 'add target: ', keys: '  ⏎ add · esc cancel' },
  save: { label: 'save workspace as: ', keys: '  ⏎ save · esc cancel' },
  filter: { label: 'filter: ', keys: '  ⏎ keep · esc clear' },
};

interface FooterProps {
  mode: UiState['mode'];
  draft: string;
  /** While a filter is typed: how many rows it keeps of how many. */
  matching?: { shown: number; total: number };
}

/** The keys, or the prompt being typed (a target, a workspace name, a filter), or how to leave the help. */
export function Footer({ mode, draft, matching }: FooterProps) {
  const { columns } = useTerminalSize();
  if (mode === 'help') {
    return (
      <Text dimColor wrap="truncate-end">
        esc/?/q close help · ↑↓ scroll
      </Text>
    );
  }
  if (mode !== 'browse') {
    const prompt = PROMPT[mode];
    return (
      <Text wrap="truncate-start">
        <Text bold>{prompt.label}</Text>
        {draft}
        <Text inverse> </Text>
        <Text dimColor>
          {matching ? `  ${matching.shown} of ${matching.total} match` : ''}
          {prompt.keys}
        </Text>
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate-end">
      {footerLine(KEY_HELP, columns)}
    </Text>
  );
}
