import { Box, Text, useInput, useStdin, type Key } from 'ink';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { describeError } from '../../errors.js';
import { tone } from '../../terminal/colour.js';
import { clip, terminalSafe } from '../../text/terminal-text.js';
import { useTerminalSize } from './hooks.js';
import { clipColumns, displayColumns } from '../layout/display-safe.js';
import {
  INITIAL_PICKER,
  enterTargets,
  highlightedIndex,
  pickerEntries,
  reducePickerInput,
  visibleRows,
  type PickerOutcome,
  type PickerRow,
  type PickerState,
  type PickerVm,
  type ProviderListing,
  type VmListingSource,
} from '../state/picker-model.js';

interface PickerProps {
  /** Each provider's listing, already under way: rows appear as each one settles. */
  sources: readonly VmListingSource[];
  /** Called once, when the user opens targets, cancels (Esc) or interrupts (Ctrl+C). */
  onDone(outcome: PickerOutcome): void;
  /** VMs with a session open already: shown greyed, not offered again. */
  isOpen?: (vm: PickerVm) => boolean;
  /** The first line, saying what Enter is for. */
  title?: string;
  /** Lines the picker may use; undefined: the terminal's height (every row when unknown). */
  height?: number;
  /** Text typed before the picker took the keys (the rest of a pasted line). */
  initialFilter?: string;
}

/** The listings of every source, each updated as its promise settles. */
function useListings(sources: readonly VmListingSource[]): ProviderListing[] {
  const [listings, setListings] = useState<ProviderListing[]>(() => sources.map(({ provider }) => ({ provider, state: 'loading' })));
  useEffect(() => {
    let live = true;
    const settle = (index: number, listing: ProviderListing) => {
      if (live) setListings((current) => current.map((old, i) => (i === index ? listing : old)));
    };
    sources.forEach(({ provider, vms }, index) => {
      vms.then(
        (listed) => settle(index, { provider, state: 'listed', vms: listed }),
        (err: unknown) => settle(index, { provider, state: 'failed', error: describeError(err) }),
      );
    });
    return () => {
      live = false;
    };
  }, [sources]);
  return listings;
}

/**
 * Keys typed after the picker was drawn but before its input was live went to the caller's
 * draft (`initialFilter`): what the draft gains later is added to the filter, not lost.
 */
function useDraftTakenUp(initialFilter: string, stateRef: { current: PickerState }, setState: (state: PickerState) => void): void {
  const takenRef = useRef(initialFilter);
  useLayoutEffect(() => {
    const taken = takenRef.current;
    if (initialFilter === taken || !initialFilter.startsWith(taken)) return;
    takenRef.current = initialFilter;
    const next = { ...stateRef.current, filter: stateRef.current.filter + initialFilter.slice(taken.length) };
    stateRef.current = next;
    setState(next);
  }, [initialFilter, stateRef, setState]);
}

/** Lines of the picker besides the VM rows: title, header, a provider line each, loading, message, hint, margins. */
const CHROME_LINES = 6;

/**
 * Pick VMs to open from what the providers list: type to filter (fuzzy), Up/Down to move,
 * Space to mark, Enter to open the marked ones (or the highlighted one, or the filter as typed
 * when it matches nothing or reads as a whole target), Esc to cancel. It draws at once and fills
 * in as the listings arrive.
 */
export function Picker({ sources, onDone, isOpen, title = 'Open which consoles?', height, initialFilter = '' }: PickerProps) {
  const listings = useListings(sources);
  const entries = useMemo(() => pickerEntries(listings, isOpen), [listings, isOpen]);
  const [state, setState] = useState<PickerState>(() => ({ ...INITIAL_PICKER, filter: initialFilter }));
  // Keys may come faster than renders: they read the latest state and entries from refs.
  const stateRef = useRef(state);
  const entriesRef = useRef(entries);
  const doneRef = useRef<{ onDone: PickerProps['onDone']; finished: boolean }>({ onDone, finished: false });
  useLayoutEffect(() => {
    entriesRef.current = entries;
    doneRef.current.onDone = onDone;
  }, [entries, onDone]);
  useDraftTakenUp(initialFilter, stateRef, setState);

  const onKey = useCallback((input: string, key: Key) => {
    if (doneRef.current.finished) return;
    const result = reducePickerInput(stateRef.current, entriesRef.current, input, key);
    if (result.state !== stateRef.current) {
      stateRef.current = result.state;
      setState(result.state);
    }
    if (result.outcome) {
      doneRef.current.finished = true;
      doneRef.current.onDone(result.outcome);
    }
  }, []);
  const { isRawModeSupported } = useStdin();
  useInput(onKey, { isActive: isRawModeSupported === true });

  const size = useTerminalSize();
  const width = size.columns;
  const rows = visibleRows(entries, state.filter);
  const index = highlightedIndex(rows, state);
  const problems = listings.filter((l) => l.state === 'failed');
  const loading = listings.filter((l) => l.state === 'loading').map((l) => l.provider);
  const lines = height ?? size.rows;
  const room = lines === undefined ? rows.length : Math.max(3, lines - CHROME_LINES - problems.length);
  const first = Math.min(Math.max(0, index - room + 1), Math.max(0, rows.length - room));
  const shown = rows.slice(first, first + room);
  const targetWidth = Math.min(Math.max(12, ...rows.map((r) => displayColumns(r.entry.vm.target))), Math.max(12, width - 40));
  const providerWidth = Math.max(8, ...rows.map((r) => r.entry.vm.provider.length));

  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-start">
        <Text bold>{`${title} `}</Text>
        <Text color={tone('cyan')}>{'filter: '}</Text>
        {terminalSafe(state.filter)}
        <Text inverse> </Text>
      </Text>
      <Text dimColor wrap="truncate-end">{`     ${'TARGET'.padEnd(targetWidth)}  ${'PROVIDER'.padEnd(providerWidth)}  STATE`}</Text>
      {shown.map((row, i) => (
        <VmLine
          key={row.entry.vm.target}
          row={row}
          highlighted={first + i === index}
          marked={state.marked.includes(row.entry.vm.target)}
          targetWidth={targetWidth}
          providerWidth={providerWidth}
        />
      ))}
      {rows.length === 0 && loading.length === 0 ? (
        <Text dimColor>{state.filter.trim() ? '  no VM matches' : '  no VMs listed'}</Text>
      ) : null}
      {problems.map((p) => (
        <Text key={p.provider} dimColor wrap="truncate-end">{`  ${p.provider}: ${terminalSafe(p.state === 'failed' ? p.error : '')}`}</Text>
      ))}
      {loading.length > 0 ? <Text dimColor wrap="truncate-end">{`  loading... (${loading.join(', ')})`}</Text> : null}
      {state.message ? (
        <Text color={tone('yellow')} wrap="truncate-end">
          {terminalSafe(state.message)}
        </Text>
      ) : null}
      <Box marginTop={1}>
        <Text dimColor wrap="truncate-end">
          {hintLine(rows, state)}
        </Text>
      </Box>
    </Box>
  );
}

/** The key line, saying what Enter does right now. */
function hintLine(rows: readonly PickerRow[], state: PickerState): string {
  const enter = enterTargets(rows, state);
  const what =
    enter.targets.length === 0
      ? 'type to filter'
      : enter.typed
        ? `⏎ open ${terminalSafe(clip(enter.targets[0], 40))} as typed`
        : state.marked.length > 0
          ? `⏎ open ${state.marked.length} marked`
          : `⏎ open ${terminalSafe(clip(enter.targets[0], 40))}`;
  return `${what} · space mark · ↑↓ move · esc cancel`;
}

/** One VM: mark, target (matched characters bold), provider, state; greyed when open already. */
function VmLine({
  row,
  highlighted,
  marked,
  targetWidth,
  providerWidth,
}: {
  row: PickerRow;
  highlighted: boolean;
  marked: boolean;
  targetWidth: number;
  providerWidth: number;
}) {
  const { vm, open } = row.entry;
  const box = open ? '[=]' : marked ? '[x]' : '[ ]';
  const state = `${terminalSafe(vm.state)}${open ? '  open already' : vm.hasConsole ? '' : '  (no console now)'}`;
  return (
    <Text wrap="truncate-end" dimColor={open} inverse={highlighted}>
      {`${highlighted ? '›' : ' '}${box} `}
      <Highlighted text={vm.target} positions={row.match.positions} width={targetWidth} />
      {`  ${terminalSafe(vm.provider).padEnd(providerWidth)}  ${state}`}
    </Text>
  );
}

/** The target padded to `width`, the characters the filter matched in bold. */
function Highlighted({ text, positions, width }: { text: string; positions: readonly number[]; width: number }) {
  const safe = terminalSafe(text);
  // Cut and padded in terminal columns: a wide (East Asian) name must not push the columns after it.
  const cut = displayColumns(safe) <= width ? safe : `${clipColumns(safe, Math.max(0, width - 3))}...`;
  const padding = ' '.repeat(Math.max(0, width - displayColumns(cut)));
  // Positions index code points of the raw text: shown only when the text is shown as is.
  const chars = Array.from(cut);
  if (safe !== text || positions.length === 0 || chars.length !== cut.length) return <>{cut + padding}</>;
  const bold = new Set(positions);
  const parts: Array<{ text: string; bold: boolean }> = [];
  chars.forEach((ch, i) => {
    const isBold = bold.has(i) && cut === safe;
    const last = parts[parts.length - 1];
    if (last && last.bold === isBold) last.text += ch;
    else parts.push({ text: ch, bold: isBold });
  });
  return (
    <>
      {parts.map((part, i) =>
        part.bold ? (
          <Text key={i} bold color={tone('cyan')}>
            {part.text}
          </Text>
        ) : (
          <Text key={i}>{part.text}</Text>
        ),
      )}
      {padding}
    </>
  );
}
