import { Box, Text } from 'ink';

interface ConsoleMenuProps {
  /** `K`'s special keys or `P`'s power actions. */
  kind: 'keys' | 'power';
  /** The console it acts on. */
  name: string;
  items: readonly string[];
  index: number;
  /** Lines it may take; the highlighted item stays in view. */
  height?: number;
}

/** The menu `K` or `P` opened: a title naming the console, then its items, the highlighted one marked. */
export function ConsoleMenu({ kind, name, items, index, height }: ConsoleMenuProps) {
  const visible = Math.max(1, Math.min(items.length, (height ?? items.length + 1) - 1));
  const start = Math.min(Math.max(0, index - Math.floor(visible / 2)), items.length - visible);
  const title = kind === 'keys' ? `Send which key to ${name}?` : `Power ${name}: which action?`;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {items.slice(start, start + visible).map((item, i) => (
        <Text key={item} inverse={start + i === index} wrap="truncate-end">
          {`${start + i === index ? '›' : ' '} ${item}`}
        </Text>
      ))}
    </Box>
  );
}
