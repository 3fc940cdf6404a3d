import { Text } from 'ink';
import { footerLine } from '../layout/footer-line.js';
import { KEY_HELP } from '../state/key-help.js';
import type { UiState } from '../state/keys.js';
import { useTerminalSize } from './hooks.js';

const PROMPT: Record<'add' | 'save' | 'filter' | 'paste', { label: string; keys: string }> = {
  add: { label: 'add target: ', keys: '  ⏎ add · esc cancel' },
  save: { label: 'save workspace as: ', keys: '  ⏎ save · esc cancel' },
  filter: { label: 'filter: ', keys: '  ⏎ keep · esc clear' },
  paste: { label: 'paste into ', keys: '  ⏎ send · esc cancel' },
};

/** The footer of a menu, a confirmation and a broadcast: what the keys do there. */
function choiceLine(mode: 'menu' | 'confirm' | 'broadcast', acting?: string, confirming?: string): string {
  if (mode === 'menu') return `${acting ?? ''}: ↑↓ choose · ⏎ take it · esc cancel`;
  if (mode === 'confirm') return `${confirming ?? ''} VM ${acting ?? ''}? [y/N]`;
  return 'broadcasting: what you type goes to every marked console · esc ends it';
}

interface FooterProps {
  mode: UiState['mode'];
  draft: string;
  /** While a filter is typed: how many rows it keeps of how many. */
  matching?: { shown: number; total: number };
  /** The console a paste, a menu or a confirmation acts on. */
  acting?: string;
  /** The power action waiting for y. */
  confirming?: string;
}

/** The keys, or the prompt being typed (a target, a workspace name, a filter), or how to leave the help. */
export function Footer({ mode, draft, matching, acting, confirming }: FooterProps) {
  const { columns } = useTerminalSize();
  if (mode === 'help') {
    return (
      <Text dimColor wrap="truncate-end">
        esc/?/q close help · ↑↓ scroll
      </Text>
    );
  }
  if (mode === 'menu' || mode === 'confirm' || mode === 'broadcast') {
    return (
      <Text bold={mode !== 'menu'} wrap="truncate-end">
        {choiceLine(mode, acting, confirming)}
      </Text>
    );
  }
  if (mode !== 'browse') {
    const prompt = PROMPT[mode];
    return (
      <Text wrap="truncate-start">
        <Text bold>{mode === 'paste' ? `${prompt.label}${acting ?? ''}: ` : prompt.label}</Text>
        {mode === 'paste' ? draft.replace(/\n/g, '⏎') : draft}
        <Text inverse> </Text>
        <Text dimColor>
          {matching ? `  ${matching.shown} of ${matching.total} match` : ''}
          {prompt.keys}
        </Text>
      </Text>
    );
  }
  return (
    <Text dimColor wrap="truncate-end">
      {footerLine(KEY_HELP, columns)}
    </Text>
  );
}
