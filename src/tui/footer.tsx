import { Text } from 'ink';
import { footerKeyLine } from './key-help.js';

const KEYS = footerKeyLine();

/** The keys, or the add-target prompt while one is typed. */
export function Footer({ mode, draft }: { mode: 'browse' | 'add'; draft: string }) {
  if (mode === 'add') {
    return (
      <Text wrap="truncate-start">
        <Text bold>add target: </Text>
        {draft}
        <Text inverse> </Text>
        <Text dimColor>{'  ⏎ add · esc cancel'}</Text>
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate-end">
      {KEYS}
    </Text>
  );
}
