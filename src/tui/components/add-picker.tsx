import { useMemo, useState } from 'react';
import type { ConsoleRow } from '../layout/format.js';
import { Picker } from './picker.js';
import { isOpenAmong, type PickerOutcome, type VmListingSource } from '../state/picker-model.js';

interface AddPickerProps {
  /** Starts a listing; called once, when the picker opens. */
  listVms(): readonly VmListingSource[];
  /** The sessions on screen: their VMs are shown open already. */
  rows: readonly ConsoleRow[];
  onDone(outcome: PickerOutcome): void;
  height?: number;
  initialFilter?: string;
}

/** The TUI's `a`: the picker over a fresh listing, with the VMs open now greyed. */
export function AddPicker({ listVms, rows, onDone, height, initialFilter }: AddPickerProps) {
  const [sources] = useState(listVms);
  const isOpen = useMemo(() => isOpenAmong(rows.map((row) => row.session)), [rows]);
  return (
    <Picker sources={sources} isOpen={isOpen} onDone={onDone} title="Add which consoles?" height={height} initialFilter={initialFilter} />
  );
}
