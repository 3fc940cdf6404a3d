import { Box, Text } from 'ink';
import { tone } from '../../terminal/colour.js';
import { formatBytes, formatRate, plural, type ConsoleRow } from '../layout/format.js';
import type { ProviderPlace } from '../state/console-store-types.js';

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

/** Lines the header takes: the totals, and where the providers point once that is known. */
export function headerHeight(places: readonly ProviderPlace[]): number {
  return places.length > 0 ? 2 : 1;
}

/** `kubevirt context lab · namespace web   openstack cloud devstack · region RegionOne`, as k9s names its context. */
function PlacesLine({ places }: { places: readonly ProviderPlace[] }) {
  return (
    <Text wrap="truncate-end">
      {places.map(({ provider, facts }, i) => (
        <Text key={provider}>
          {i > 0 ? '   ' : ''}
          <Text bold>{provider}</Text>
          {facts.map(({ label, value }, j) => (
            <Text key={label}>
              {`${j > 0 ? ' ·' : ''} ${label ? `${label} ` : ''}`}
              <Text color={tone('cyan')}>{value}</Text>
            </Text>
          ))}
        </Text>
      ))}
    </Text>
  );
}

/**
 * The top lines: what vconsole is, how many consoles and clients, traffic now, and `view`: the
 * filter and the order the rows are shown in, when not all rows show as opened; under it, where
 * the providers in use point (kube context and namespace, cloud and region).
 */
export function Header({
  rows,
  view,
  places = [],
  broadcast,
}: {
  rows: readonly ConsoleRow[];
  view?: string;
  places?: readonly ProviderPlace[];
  /** During a broadcast (`b`): the names of the consoles it goes to, said instead of the totals. */
  broadcast?: readonly string[];
}) {
  const totals = headerTotals(rows);
  return (
    <Box flexDirection="column">
      {broadcast ? (
        <Text wrap="truncate-end" bold inverse color={tone('yellow')}>
          {`BROADCAST to ${plural(broadcast.length, 'console')}: ${broadcast.join(', ')} · what you type goes to each · Esc ends it`}
        </Text>
      ) : (
        <TotalsLine totals={totals} view={view} />
      )}
      {places.length > 0 ? <PlacesLine places={places} /> : null}
    </Box>
  );
}

/** `vconsole  [view]  3 consoles · 2 listening · ...`. */
function TotalsLine({ totals, view }: { totals: HeaderTotals; view?: string }) {
  return (
    <Text wrap="truncate-end">
      <Text bold color={tone('cyan')}>
        vconsole
      </Text>
      {/* Right after the name: a narrow terminal cuts the line's end, and this changes what the rows are. */}
      {view !== undefined ? <Text bold>{`  [${view}]`}</Text> : null}
      {`  ${plural(totals.sessions, 'console')} · ${totals.listening} listening`}
      {totals.failed > 0 ? <Text color={tone('red')}>{` · ${totals.failed} failed`}</Text> : null}
      {` · ${plural(totals.clients, 'client')} · in ${formatRate(totals.rateIn)} · out ${formatRate(totals.rateOut)}`}
      {totals.recorded !== undefined ? <Text color={tone('red')}>{` · rec ${formatBytes(totals.recorded)}`}</Text> : null}
    </Text>
  );
}
