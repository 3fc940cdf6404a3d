import { Text } from 'ink';
import { footerKeyLine } from '../state/key-help.js';

const KEYS = footerKeyLine();

/** The keys, or the add-target (or save-workspace) prompt while one is typed. */
export function Footer({ mode, draft }: { mode: 'browse' | 'add' | 'save'; draft: string }) {
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
      {KEYS}
    </Text>
  );
}
