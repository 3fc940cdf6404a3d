import { Box, Text, type DOMElement } from 'ink';
import { memo, useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import type { ImagePlacement } from '../thumbnails/image-overlay.js';
import { formatBytes, isSerialRow, rowDisplayState, rowProblem, truncate, wrapLines, type ConsoleRow } from '../layout/format.js';
import { pageStart, type GridLayout } from '../layout/grid-layout.js';
import { STATE_COLOR } from './session-table.js';
import type { Thumbnail } from '../thumbnails/thumbnail.js';
import { halfBlockLines, type HalfBlockColours } from '../thumbnails/halfblock.js';
import { vmColor, vmIsDown } from '../layout/vm-column.js';
import { tone, type Colour } from '../../terminal/colour.js';

/**
 * How tiles draw pictures: half blocks in these colours, a terminal image protocol (the tile
 * keeps the area blank and an ImageOverlay draws there), or no pictures at all.
 */
export type TileDrawing = HalfBlockColours | 'image' | 'none';

interface TileProps {
  row: ConsoleRow;
  selected: boolean;
  layout: GridLayout;
  drawing: TileDrawing;
  /** Told the picture area's element (image drawing), and undefined when it goes. */
  pictureRef?: (id: number, element: DOMElement | null) => void;
}

/** What a tile says instead of a picture while there is none. */
function placeholder(row: ConsoleRow, drawing: TileDrawing): { text: string; color?: Colour } {
  const { session } = row;
  if (session.state === 'error') return { text: rowProblem(row) ?? 'failed; r retries', color: 'red' };
  if (session.state !== 'listening') return { text: session.state === 'closed' ? 'closed' : 'connecting…' };
  if (drawing === 'none' && !isSerialRow(row)) return { text: 'pictures off (--thumbnails none, or NO_COLOR)' };
  if (row.thumbnail?.type === 'none') return { text: row.thumbnail.reason };
  return { text: isSerialRow(row) ? 'nothing printed yet' : 'waiting for the first picture…' };
}

/** The picture area: exactly `pictureRows` lines of `pictureColumns` cells. */
function TilePicture({ row, layout, drawing, pictureRef }: Omit<TileProps, 'selected'>) {
  const { pictureColumns: width, pictureRows: height } = layout;
  const thumbnail: Thumbnail | undefined = row.session.state === 'listening' ? row.thumbnail : undefined;
  const id = row.session.id;
  const ref = useCallback((element: DOMElement | null) => pictureRef?.(id, element), [pictureRef, id]);
  if (drawing === 'image' && thumbnail?.type === 'pixels') {
    // Blank lines the overlay draws the picture over.
    return (
      <Box ref={ref} flexDirection="column" height={height} width={width}>
        <Text>{' '.repeat(width)}</Text>
      </Box>
    );
  }
  return <TextPicture row={row} layout={layout} drawing={drawing} />;
}

function TextPicture({ row, layout, drawing }: Omit<TileProps, 'selected' | 'pictureRef'>) {
  const { pictureColumns: width, pictureRows: height } = layout;
  const thumbnail: Thumbnail | undefined = row.session.state === 'listening' ? row.thumbnail : undefined;
  const pixels = useMemo(() => {
    if (drawing === 'none' || drawing === 'image' || thumbnail?.type !== 'pixels') return undefined;
    // A picture of another size is from before a resize: the next one is on its way.
    if (thumbnail.width !== width || thumbnail.height !== height * 2) return undefined;
    return halfBlockLines(thumbnail.rgb, thumbnail.width, thumbnail.height, drawing);
  }, [thumbnail, width, height, drawing]);
  if (pixels) {
    return (
      <Box flexDirection="column" height={height}>
        {pixels.map((line, i) => (
          <Text key={i}>{line}</Text>
        ))}
      </Box>
    );
  }
  if (thumbnail?.type === 'lines') {
    const lines = thumbnail.lines.slice(-height);
    return (
      <Box flexDirection="column" height={height}>
        {lines.map((line, i) => (
          <Text key={i} wrap="truncate-end">
            {truncate(line, width) || ' '}
          </Text>
        ))}
      </Box>
    );
  }
  const { text, color } = placeholder(row, drawing);
  return (
    <Box flexDirection="column" height={height}>
      {wrapLines(text, width, height).map((line, i) => (
        <Text key={i} dimColor={!color} color={tone(color)}>
          {line}
        </Text>
      ))}
    </Box>
  );
}

/** The second line of a tile: console state, VM state, what else is worth knowing. */
function stateLine(row: ConsoleRow): { state: string; vm?: string; rest: string } {
  const extras: string[] = [];
  if (row.unmatched) extras.push('unmatched');
  if (row.recordedBytes !== undefined) extras.push(`rec ${formatBytes(row.recordedBytes)}`);
  if (isSerialRow(row) && row.serial && row.serial.unseenBytes > 0) extras.push(`● ${formatBytes(row.serial.unseenBytes)} new`);
  return { state: rowDisplayState(row), vm: row.vm, rest: extras.map((e) => ` · ${e}`).join('') };
}

function GridTile({ row, selected, layout, drawing, pictureRef }: TileProps) {
  const { state, vm, rest } = stateLine(row);
  return (
    <Box
      flexDirection="column"
      width={layout.tileWidth}
      borderStyle={selected ? 'double' : 'round'}
      borderColor={tone(selected ? 'cyan' : undefined)}
      borderDimColor={!selected}
    >
      <Text bold={selected} inverse={selected} dimColor={vmIsDown(row)} wrap="truncate-end">
        {truncate(`${selected ? '›' : ' '}${row.session.name}`, layout.pictureColumns)}
      </Text>
      <Text wrap="truncate-end">
        <Text color={tone(STATE_COLOR[rowDisplayState(row)])}>{state}</Text>
        {vm ? (
          <>
            {' · vm '}
            <Text color={tone(vmColor(row))}>{vm}</Text>
          </>
        ) : null}
        {rest}
      </Text>
      <TilePicture row={row} layout={layout} drawing={drawing} pictureRef={pictureRef} />
    </Box>
  );
}

/** A tile drawn again only when its row, the selection, the layout or the drawing change. */
const Tile = memo(
  GridTile,
  (before, after) =>
    before.row === after.row &&
    before.selected === after.selected &&
    before.drawing === after.drawing &&
    before.pictureRef === after.pictureRef &&
    before.layout.tileWidth === after.layout.tileWidth &&
    before.layout.pictureRows === after.layout.pictureRows,
);

interface SessionGridProps {
  rows: readonly ConsoleRow[];
  selectedIndex: number;
  layout: GridLayout;
  drawing: TileDrawing;
  /** Image drawing: told where each tile's picture goes, after every layout. */
  onImages?: (placements: ImagePlacement[]) => void;
  /** What to say when there are no rows to show; default: how to add a target. */
  empty?: string;
}

/** The rows on the selection's page. */
export function visibleTiles(
  rows: readonly ConsoleRow[],
  selectedIndex: number,
  layout: GridLayout,
): { start: number; shown: readonly ConsoleRow[] } {
  const start = pageStart(Math.max(0, selectedIndex), layout);
  return { start, shown: rows.slice(start, start + layout.perPage) };
}

/** The grid view: the page of tiles holding the selection, and which page it is. */
export function SessionGrid({ rows, selectedIndex, layout, drawing, onImages, empty }: SessionGridProps) {
  const { start, shown } = visibleTiles(rows, selectedIndex, layout);
  const pictures = useRef(new Map<number, DOMElement>());
  const pictureRef = useCallback((id: number, element: DOMElement | null) => {
    if (element) pictures.current.set(id, element);
    else pictures.current.delete(id);
  }, []);
  const last = useRef('');
  const previous = useRef<ImagePlacement[]>([]);
  // Ink has laid the frame out by the time layout effects run: positions are current.
  useLayoutEffect(() => {
    if (!onImages) return;
    const placements = drawing === 'image' ? imagePlacements(shown, pictures.current, layout) : [];
    const key = placements.map((p) => `${p.id}:${p.top}:${p.left}:${p.columns}x${p.rows}`).join(' ');
    const changed = key !== last.current || placements.some((p, i) => p.picture !== previous.current[i]?.picture);
    last.current = key;
    previous.current = placements;
    if (changed) onImages(placements);
  });
  useLayoutEffect(() => () => onImages?.([]), [onImages]);
  if (rows.length === 0) return <Text dimColor>{empty ?? 'No consoles yet: press a to add a target.'}</Text>;
  const lines: ConsoleRow[][] = [];
  for (let i = 0; i < shown.length; i += layout.columns) lines.push(shown.slice(i, i + layout.columns));
  const pages = Math.ceil(rows.length / layout.perPage);
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        <Box key={i} flexDirection="row">
          {line.map((row, j) => (
            <Tile
              key={row.session.id}
              row={row}
              selected={start + i * layout.columns + j === selectedIndex}
              layout={layout}
              drawing={drawing}
              pictureRef={drawing === 'image' ? pictureRef : undefined}
            />
          ))}
        </Box>
      ))}
      {pages > 1 ? (
        <Text
          dimColor
        >{`  tiles ${start + 1}-${start + shown.length} of ${rows.length} · page ${Math.floor(start / layout.perPage) + 1}/${pages} (PgUp/PgDn)`}</Text>
      ) : null}
    </Box>
  );
}

/** Where each shown tile's picture area is in the frame (its Yoga layout, summed up to the root), with its picture. */
function imagePlacements(shown: readonly ConsoleRow[], elements: ReadonlyMap<number, DOMElement>, layout: GridLayout): ImagePlacement[] {
  const placements: ImagePlacement[] = [];
  for (const row of shown) {
    const element = elements.get(row.session.id);
    const thumbnail = row.thumbnail;
    if (!element || thumbnail?.type !== 'pixels' || row.session.state !== 'listening') continue;
    let top = 0;
    let left = 0;
    for (let node: DOMElement | undefined = element; node; node = node.parentNode) {
      top += node.yogaNode?.getComputedTop() ?? 0;
      left += node.yogaNode?.getComputedLeft() ?? 0;
    }
    placements.push({ id: row.session.id, top, left, columns: layout.pictureColumns, rows: layout.pictureRows, picture: thumbnail });
  }
  return placements;
}
