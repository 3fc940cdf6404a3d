import { Box } from 'ink';
import { useLayoutEffect, type ReactNode } from 'react';
import type { ConsoleStore } from '../state/console-store.js';
import type { ProviderPlace } from '../state/console-store-types.js';
import type { ConsoleRow } from '../layout/format.js';
import { Detail } from './detail.js';
import { EventLog } from './event-log.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import { FRAME_MS, useConsoleState, useSecondsTick, useTerminalSize, useThumbnailView } from './hooks.js';
import { INITIAL_UI, selectedIndex, type UiState } from '../state/keys.js';
import type { ConsoleHandlers } from '../state/requests.js';
import { viewSummary } from '../state/row-view.js';
import { helpScreenLines, KeyHelpOverlay } from './key-help-overlay.js';
import { NoticeLine, NoViewer } from './notice.js';
import { AddPicker } from './add-picker.js';
import type { VmListingSource } from '../state/picker-model.js';
import { SessionTable } from './session-table.js';
import type { ImagePlacement } from '../thumbnails/image-overlay.js';
import { SessionGrid } from './session-grid.js';
import { ConsoleMenu } from './console-menu.js';
import type { ThumbnailMode, ThumbnailView } from '../thumbnails/thumbnail.js';
import { useAppKeys } from './app-keys.js';
import { drawnShape, screenMeasures, tileDrawing, tilesOnScreen } from './app-measures.js';

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
  /** The power actions `P` offers (the command's words); without them `P` says there are none. */
  powerActions?: readonly string[];
}

/** What `open` detaches a serial console with unless told otherwise. */
const DEFAULT_DETACH_KEY = 'Ctrl+]';

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
  powerActions,
}: AppProps) {
  const state = useConsoleState(store, frameMs);
  const { rows: allRows } = state;
  const size = useTerminalSize();
  const { ui, filter, rows, picking, onPicked, noteDrawn } = useAppKeys(
    allRows,
    initialUi,
    { handlers, copyToClipboard, onUiChange },
    { canPick: listVms !== undefined, powerActions },
  );
  const now = useSecondsTick(rows.some((row) => row.session.state === 'listening'));
  const index = selectedIndex(rows, ui);
  const width = size.columns;
  const notice = ui.notice ?? state.notice;
  const { logLines, tableHeight, grid, helpHeight } = screenMeasures(size, state, notice, { grid: ui.view === 'grid', rows: rows.length });
  const drawing = tileDrawing(thumbnails, onImages !== undefined);
  useLayoutEffect(() => noteDrawn(drawnShape(grid, ui.mode === 'help' ? helpScreenLines(width).length : 0, helpHeight)));
  // Rows there are, none of which the filter keeps: say so, and how to see them again.
  const empty = allRows.length > 0 && rows.length === 0 ? `No console matches "${filter.trim()}": Esc clears the filter.` : undefined;
  const onScreen = tilesOnScreen(grid, rows, index, thumbnails, drawing);
  useThumbnailView(onScreen.key, onScreen.tiles, onThumbnailView);
  const { header, footer } = screenEnds(ui, allRows, rows.length, { filter, places: state.places });
  const rowsBelow = (lines: number) => (size.rows === undefined ? undefined : size.rows - lines);
  if (picking && listVms) {
    return (
      <ModeScreen width={width} header={header}>
        <AddPicker listVms={listVms} rows={allRows} onDone={onPicked} height={rowsBelow(3)} initialFilter={ui.draft} />
      </ModeScreen>
    );
  }
  if (ui.mode === 'menu' || ui.mode === 'help') {
    return (
      <ModeScreen width={width} header={header} footer={footer}>
        {ui.menu ? (
          <ConsoleMenu {...ui.menu} name={ui.acting?.name ?? ''} height={rowsBelow(4)} />
        ) : (
          <KeyHelpOverlay width={width} height={helpHeight} top={ui.helpTop} />
        )}
      </ModeScreen>
    );
  }
  return (
    <Box flexDirection="column" width={width}>
      {header}
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
          <SessionTable rows={rows} selectedIndex={index} width={width} height={tableHeight} now={now} empty={empty} marked={ui.marked} />
        )}
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Detail row={index >= 0 ? rows[index] : undefined} width={width} now={now} detachKey={detachKey} />
        <NoticeLine text={notice} />
      </Box>
      {grid ? null : (
        <Box marginTop={1}>
          <EventLog log={state.log} lines={logLines} width={width} />
        </Box>
      )}
      {footer}
    </Box>
  );
}

/** A full-screen mode (the picker, the help): the header, the mode's content under a margin, and its footer if any. */
function ModeScreen({ width, header, footer, children }: { width: number; header: ReactNode; footer?: ReactNode; children: ReactNode }) {
  return (
    <Box flexDirection="column" width={width}>
      {header}
      <Box marginTop={1}>{children}</Box>
      {footer}
    </Box>
  );
}

/** The header (a broadcast says so there) and the footer (the keys, a prompt, a menu's or a confirmation's line). */
function screenEnds(
  ui: UiState,
  allRows: readonly ConsoleRow[],
  shown: number,
  { filter, places }: { filter: string; places: readonly ProviderPlace[] },
): { header: ReactNode; footer: ReactNode } {
  const view = viewSummary(filter, ui.sort, shown, allRows.length);
  const broadcast =
    ui.mode === 'broadcast' ? allRows.filter((row) => ui.marked.includes(row.session.id)).map((row) => row.session.name) : undefined;
  return {
    header: <Header rows={allRows} view={view} places={places} broadcast={broadcast} />,
    footer: (
      <Footer
        mode={ui.mode}
        draft={ui.draft}
        matching={ui.mode === 'filter' ? { shown, total: allRows.length } : undefined}
        acting={ui.acting?.name}
        confirming={ui.confirming}
      />
    ),
  };
}
