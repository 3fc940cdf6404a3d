import { Box, Text } from 'ink';
import { tone } from '../../terminal/colour.js';
import { formatBytes, formatRate, plural, type ConsoleRow } from '../layout/format.js';

interface HeaderTotals {
  sessions: number;
  listening: number;
  failed: number;
  clients: number;
  rateIn: number;
  rateOut: number;
  /** Bytes all recordings take on disk, or undefined when nothing is recorded. */
  recorded?: number;
}

/** Counts and total rates over every row. */
function headerTotals(rows: readonly ConsoleRow[]): HeaderTotals {
  const totals: HeaderTotals = { sessions: rows.length, listening: 0, failed: 0, clients: 0, rateIn: 0, rateOut: 0 };
  for (const { session, rateIn, rateOut, recordedBytes } of rows) {
    if (recordedBytes !== undefined) totals.recorded = (totals.recorded ?? 0) + recordedBytes;
    if (session.state === 'listening') totals.listening++;
    if (session.state === 'error') totals.failed++;
    totals.clients += session.clients;
    totals.rateIn += rateIn;
    totals.rateOut += rateOut;
  }
  return totals;
}

/** The top line: what vconsole is, how many consoles and clients, traffic now. */
export function Header({ rows }: { rows: readonly ConsoleRow[] }) {
  const totals = headerTotals(rows);
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text bold color={tone('cyan')}>
          vconsole
        </Text>
        {`  ${plural(totals.sessions, 'console')} · ${totals.listening} listening`}
        {totals.failed > 0 ? <Text color={tone('red')}>{` · ${totals.failed} failed`}</Text> : null}
        {` · ${plural(totals.clients, 'client')} · in ${formatRate(totals.rateIn)} · out ${formatRate(totals.rateOut)}`}
        {totals.recorded !== undefined ? <Text color={tone('red')}>{` · rec ${formatBytes(totals.recorded)}`}</Text> : null}
      </Text>
    </Box>
  );
}
