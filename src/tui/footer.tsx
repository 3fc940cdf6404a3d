import { Text } from 'ink';

const KEYS = '↑↓/jk select · ⏎/o open viewer · c address · r retry · x close · a add · q quit';

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
