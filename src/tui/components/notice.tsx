import { Box, Text } from 'ink';
import { tone } from '../../terminal/colour.js';
import type { NoViewerNotice } from '../state/console-store.js';

/** The no-viewer hint: what was looked for, how to install one here, that any viewer works. */
export function NoViewer({ notice }: { notice?: NoViewerNotice }) {
  if (!notice) return null;
  const lookedFor = notice.lookedFor.length > 0 ? ` (looked for ${notice.lookedFor.join(', ')})` : '';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={tone('yellow')} paddingX={1}>
      <Text color={tone('yellow')} wrap="truncate-end">{`No VNC viewer found${lookedFor}.`}</Text>
      <Text wrap="truncate-end">{`Install one: ${notice.install}`}</Text>
      <Text wrap="truncate-end">Screens open in the browser meanwhile; any VNC viewer can connect to the addresses shown below.</Text>
    </Box>
  );
}

/** One line answering the last key, or the caller's notice. */
export function NoticeLine({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <Text color={tone('yellow')} wrap="truncate-end">
      {text}
    </Text>
  );
}
