import { Box, useInput, useStdin, type Key } from 'ink';
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { describeError } from '../../errors.js';
import { terminalSafe } from '../../text/terminal-text.js';
import type { ConsoleStore } from '../state/console-store.js';
import { Detail, DETAIL_ERROR_LINES } from './detail.js';
import { EventLog } from './event-log.js';
import { Footer } from './footer.js';
import { Header, headerHeight } from './header.js';
import { FRAME_MS, useConsoleState, useSecondsTick, useTerminalSize, useThumbnailView } from './hooks.js';
import { activeFilter, INITIAL_UI, reduceInput, selectedIndex, type KeyRequest, type UiState } from '../state/keys.js';
import { dispatch, type ConsoleHandlers } from '../state/requests.js';
import { viewRows, viewSummary } from '../state/row-view.js';
import { helpScreenLines, KeyHelpOverlay } from './key-help-overlay.js';
import { NoticeLine, NoViewer } from './notice.js';
import { AddPicker } from './add-picker.js';
import type { PickerOutcome, VmListingSource } from '../state/picker-model.js';
import { SessionTable } from './session-table.js';
import { gridLayout } from '../layout/grid-layout.js';
import { imagePixels, type ImagePlacement } from '../thumbnails/image-overlay.js';
import { SessionGrid, visibleTiles, type TileDrawing } from './session-grid.js';
import { isImageMode, type ThumbnailMode, type ThumbnailView } from '../thumbnails/thumbnail.js';

export type { ThumbnailView } from '../thumbnails/thumbnail.js';

interface AppProps {
  store: ConsoleStore;
  /** What the keys' requests do (requests.ts): the caller owns sessions, viewers and shutdown. */
  handlers: ConsoleHandlers;
  /** `a` shows a picker over these listings (asked anew each time); without it `a` is a bare prompt. */
  listVms?: () => readonly VmListingSource[];
  /**
   * The grid's tiles on screen and their picture size, told whenever they change; undefined
   * when no picture is shown (the table, or --thumbnails none). The caller feeds
   * thumbnail events (`ConsoleStore.apply`) for these sessions only.
   */
  onThumbnailView?: (view: ThumbnailView | undefined) => void;
  /** Asks the terminal to copy text (OSC 52); without it `c` only shows the address. */
  copyToClipboard?: (text: string) => void;
  /** Minimum time between frames caused by store changes. */
  frameMs?: number;
  /** The UI state to start from: the one the app had before it was suspended. */
  initialUi?: UiState;
  /** Told every new UI state, so a remount can start where this one left off. */
  onUiChange?: (ui: UiState) => void;
  /** The key that detaches from a serial console, as the detail line names it. */
  detachKey?: string;
  /** How the grid draws pictures (default truecolor half blocks). */
  thumbnails?: ThumbnailMode;
  /**
   * Draws image-protocol pictures over the tiles (kitty, iterm2, sixel); without it those
   * modes are drawn as 24-bit half blocks.
   */
  onImages?: (placements: ImagePlacement[]) => void;
}

/** What `open` detaches a serial console with unless told otherwise. */
const DEFAULT_DETACH_KEY = 'Ctrl+]';

/** Lines of the event log shown under the table. */
const LOG_LINES = 6;

/**
 * The `vconsole open` screen: header, session table, detail of the selected row, event log,
 * notices and the key line. Renders the store; keys only make requests of `handlers`.
 * Timers: a frame timer while store changes are pending, and a 1 s tick while some session
 * listens (uptimes move); nothing at all when idle.
 */
export function App({
  store,
  handlers,
  listVms,
  onThumbnailView,
  copyToClipboard,
  frameMs = FRAME_MS,
  initialUi = INITIAL_UI,
  onUiChange,
  detachKey = DEFAULT_DETACH_KEY,
  thumbnails = 'truecolor',
  onImages,
}: AppProps) {
  const state = useConsoleState(store, frameMs);
  const { rows: allRows } = state;
  const size = useTerminalSize();
  const [ui, setUi] = useState<UiState>(initialUi);
  // What the table and the grid show: the rows through the `/` filter, in the `<` `>` order;
  // the keys act on these. The header counts every row, the picker marks every open target.
  const filter = activeFilter(ui);
  const rows = useMemo(() => viewRows(allRows, filter, ui.sort), [allRows, filter, ui.sort]);
  // Keys may arrive faster than React re-renders: they read and write these, never a stale
  // closure. The committed props reach them in a layout effect, which runs in the same commit,
  // before any further input is read.
  const uiRef = useRef(ui);
  const rowsRef = useRef(rows);
  const gridRef = useRef<{ columns: number; perPage: number } | undefined>(undefined);
  const helpRef = useRef<{ lines: number; perPage: number } | undefined>(undefined);
  const callerRef = useRef({ handlers, copyToClipboard, onUiChange });
  useLayoutEffect(() => {
    rowsRef.current = rows;
    callerRef.current = { handlers, copyToClipboard, onUiChange };
  }, [rows, handlers, copyToClipboard, onUiChange]);

  const commitUi = useCallback((next: UiState) => {
    uiRef.current = next;
    setUi(next);
    callerRef.current.onUiChange?.(next);
  }, []);
  const setNotice = useCallback((notice: string) => commitUi({ ...uiRef.current, notice: terminalSafe(notice) }), [commitUi]);
  // What a handler answers is the notice line; so is its error, as vconsole's own sentence
  // with what to do (a bare message would drop the hint, a system error its words).
  const request = useCallback(
    (made: KeyRequest) => {
      const { handlers: current, copyToClipboard: copy } = callerRef.current;
      if (made.action === 'copy') return copy?.(made.text);
      dispatch(current, made, { notice: setNotice, error: (err) => setNotice(describeError(err)) });
    },
    [setNotice],
  );

  const onKey = useCallback(
    (input: string, key: Key) => {
      const canCopy = callerRef.current.copyToClipboard !== undefined;
      const context = { rows: rowsRef.current, canCopy, grid: gridRef.current, help: helpRef.current };
      const result = reduceInput(uiRef.current, context, input, key);
      if (result.ui !== uiRef.current) commitUi(result.ui);
      for (const made of result.requests) request(made);
    },
    [commitUi, request],
  );
  // After `a` the picker (when the caller can list) takes the keys until it is done.
  const picking = ui.mode === 'add' && listVms !== undefined;
  const onPicked = useCallback(
    (outcome: PickerOutcome) => {
      const browse: UiState = { ...uiRef.current, mode: 'browse', draft: '', notice: undefined };
      if (outcome.type !== 'open') {
        commitUi(browse);
        if (outcome.type === 'interrupt') request({ action: 'quit' });
        return;
      }
      commitUi({ ...browse, notice: `adding ${outcome.targets.join(', ')}` });
      for (const text of outcome.targets) request({ action: 'add', text });
    },
    [commitUi, request],
  );
  // Without a terminal on stdin there are no keys (Ink would throw enabling raw mode); the
  // caller still quits on SIGINT. Ink reports `undefined` for a piped stdin, hence `=== true`.
  const { isRawModeSupported } = useStdin();
  useInput(onKey, { isActive: isRawModeSupported === true && !picking });

  const now = useSecondsTick(rows.some((row) => row.session.state === 'listening'));
  const index = selectedIndex(rows, ui);
  const selected = index >= 0 ? rows[index] : undefined;
  const width = size.columns;
  const notice = ui.notice ?? state.notice;
  const logLines = size.rows === undefined ? LOG_LINES : Math.min(LOG_LINES, Math.max(0, size.rows - 20));
  // Lines besides the table rows: header, table title, detail line and up to DETAIL_ERROR_LINES
  // of error, notice, no-viewer box, log, footer, three margins; plus one because Ink clears the
  // whole screen on every frame once its output is as tall as the terminal.
  const chrome =
    headerHeight(state.places) + 1 + 1 + DETAIL_ERROR_LINES + (notice ? 1 : 0) + (state.noViewer ? 5 : 0) + logLines + 1 + 3 + 1;
  const tableHeight = size.rows === undefined ? undefined : Math.max(3, size.rows - chrome);
  // The grid takes the log's lines too; besides tiles: header, detail and error lines, notice,
  // no-viewer box, the page line, footer, two margins, and Ink's one.
  const gridChrome = headerHeight(state.places) + 1 + DETAIL_ERROR_LINES + (notice ? 1 : 0) + (state.noViewer ? 5 : 0) + 1 + 1 + 2 + 1;
  const grid =
    ui.view === 'grid'
      ? gridLayout(rows.length, width, size.rows === undefined ? undefined : Math.max(6, size.rows - gridChrome))
      : undefined;
  const drawing: TileDrawing =
    thumbnails === 'none' ? 'none' : thumbnails === '256' ? '256' : isImageMode(thumbnails) && onImages ? 'image' : 'truecolor';
  // The help's lines besides header, title, scroll line, footer, one margin and Ink's one.
  const helpHeight = size.rows === undefined ? undefined : Math.max(1, size.rows - 5 - headerHeight(state.places));
  useLayoutEffect(() => {
    gridRef.current = grid && { columns: grid.columns, perPage: grid.perPage };
    const helpLines = ui.mode === 'help' ? helpScreenLines(width).length : 0;
    helpRef.current = { lines: helpLines, perPage: helpHeight ?? helpLines };
  });
  const view = viewSummary(filter, ui.sort, rows.length, allRows.length);
  // Rows there are, none of which the filter keeps: say so, and how to see them again.
  const empty = allRows.length > 0 && rows.length === 0 ? `No console matches "${filter.trim()}": Esc clears the filter.` : undefined;
  const tileIds = grid ? visibleTiles(rows, index, grid).shown.map((row) => row.session.id) : undefined;
  const pixels =
    grid &&
    (drawing === 'image' && isImageMode(thumbnails)
      ? imagePixels(thumbnails, grid.pictureColumns, grid.pictureRows)
      : { width: grid.pictureColumns, height: grid.pictureRows * 2 });
  const tiles: ThumbnailView | undefined =
    grid && tileIds && pixels
      ? { sessionIds: tileIds, columns: grid.pictureColumns, rows: grid.pictureRows, pixelWidth: pixels.width, pixelHeight: pixels.height }
      : undefined;
  const tilesKey = tiles ? `${tiles.sessionIds.join(',')}@${tiles.columns}x${tiles.rows}/${tiles.pixelWidth}x${tiles.pixelHeight}` : '';
  useThumbnailView(tilesKey, tiles, onThumbnailView);

  if (picking && listVms) {
    return (
      <Box flexDirection="column" width={width}>
        <Header rows={allRows} view={view} places={state.places} />
        <Box marginTop={1}>
          <AddPicker
            listVms={listVms}
            rows={allRows}
            onDone={onPicked}
            height={size.rows === undefined ? undefined : size.rows - 3}
            initialFilter={ui.draft}
          />
        </Box>
      </Box>
    );
  }
  if (ui.mode === 'help') {
    return (
      <Box flexDirection="column" width={width}>
        <Header rows={allRows} view={view} places={state.places} />
        <Box marginTop={1}>
          <KeyHelpOverlay width={width} height={helpHeight} top={ui.helpTop} />
        </Box>
        <Footer mode={ui.mode} draft={ui.draft} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width}>
      <Header rows={allRows} view={view} places={state.places} />
      <NoViewer notice={state.noViewer} />
      <Box marginTop={1}>
        {grid ? (
          <SessionGrid
            rows={rows}
            selectedIndex={index}
            layout={grid}
            drawing={drawing}
            onImages={drawing === 'image' ? onImages : undefined}
            empty={empty}
          />
        ) : (
          <SessionTable rows={rows} selectedIndex={index} width={width} height={tableHeight} now={now} empty={empty} />
        )}
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Detail row={selected} width={width} now={now} detachKey={detachKey} />
        <NoticeLine text={notice} />
      </Box>
      {grid ? null : (
        <Box marginTop={1}>
          <EventLog log={state.log} lines={logLines} width={width} />
        </Box>
      )}
      <Footer mode={ui.mode} draft={ui.draft} matching={ui.mode === 'filter' ? { shown: rows.length, total: allRows.length } : undefined} />
    </Box>
  );
}
