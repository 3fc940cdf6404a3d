// The k9s plugins of docs/K9S.md (scripts/packaging/k9s-plugins.mjs): the file parses as k9s reads
// plugins.yaml (its plugin fields and their types, its shortcut forms), binds keys on the
// VirtualMachineInstance and VirtualMachine views, and each command line, with the variables
// filled in as k9s fills them, is one vconsole's own parser accepts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { K9S_SCOPES, k9sPluginsYaml } from '../../scripts/packaging/k9s-plugins.mjs';
import { buildProgram } from '../../src/cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** k9s's plugin fields (its config's Plugin type and plugin schema) and their YAML types. */
const PLUGIN_FIELDS: Record<string, 'string' | 'boolean' | 'string[]' | 'object[]'> = {
  shortCut: 'string',
  override: 'boolean',
  description: 'string',
  confirm: 'boolean',
  dangerous: 'boolean',
  scopes: 'string[]',
  command: 'string',
  background: 'boolean',
  overwriteOutput: 'boolean',
  args: 'string[]',
  pipes: 'string[]',
  inputs: 'object[]',
};
const REQUIRED_FIELDS = ['shortCut', 'description', 'scopes', 'command'];

/** The variables k9s sets for a plugin's args, with values for a VMI `vm-a` in namespace `prod` of context `lab`. */
const K9S_VARIABLES: Record<string, string> = {
  NAME: 'vm-a',
  NAMESPACE: 'prod',
  CONTEXT: 'lab',
  CLUSTER: 'lab-cluster',
  USER: 'admin',
  GROUPS: '',
  KUBECONFIG: '/home/u/.kube/config',
  RESOURCE_NAME: 'virtualmachineinstances',
  RESOURCE_GROUP: 'kubevirt.io',
  RESOURCE_VERSION: 'v1',
  FILTER: '',
};

/** One arg as k9s fills it: $VAR and ${VAR}, each replaced in place (no shell). */
function substitute(arg: string): string {
  return arg.replace(/\$\{([\w\-%/: ]+)\}|\$([\w-]+)/g, (whole, braced?: string, bare?: string) => {
    const value = K9S_VARIABLES[(braced ?? bare)!.toUpperCase()];
    expect(value, `k9s sets no ${whole}`).toBeDefined();
    return value;
  });
}

function typeOf(value: unknown): string {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string') ? 'string[]' : 'object[]';
  return typeof value;
}

/** What vconsole's parser makes of `argv`: the command's arguments and options, its action not run. */
function parsedBy(argv: string[]): { command: string; args: unknown[]; options: Record<string, unknown> } {
  const program = buildProgram(undefined, false);
  let seen: { command: string; args: unknown[]; options: Record<string, unknown> } | undefined;
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    command.action(function (this: Command, ...args: unknown[]) {
      seen = { command: this.name(), args: args.slice(0, -2), options: this.opts() };
    });
  }
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  program.parse(argv, { from: 'user' });
  if (!seen) throw new Error(`no command ran for ${argv.join(' ')}`);
  return seen;
}

const fromDocs = /```yaml\n([\s\S]*?)```/.exec(readFileSync(path.join(ROOT, 'docs/K9S.md'), 'utf8'));
const plugins = (parse(k9sPluginsYaml()) as { plugins: Record<string, Record<string, unknown>> }).plugins;

describe('k9s plugins', () => {
  it('docs/K9S.md shows the generated file', () => {
    expect(fromDocs?.[1], 'docs/K9S.md: its yaml block (node scripts/packaging/k9s-plugins.mjs prints it)').toBe(k9sPluginsYaml());
  });

  it("parses as k9s reads plugins.yaml: only `plugins`, each with k9s's fields and types", () => {
    expect(Object.keys(parse(k9sPluginsYaml()) as object)).toEqual(['plugins']);
    const shortcuts = new Set<string>();
    for (const [name, plugin] of Object.entries(plugins)) {
      for (const field of REQUIRED_FIELDS) expect(plugin, `${name}.${field}`).toHaveProperty(field);
      for (const [field, value] of Object.entries(plugin)) {
        expect(PLUGIN_FIELDS, `${name}.${field}: a field k9s knows`).toHaveProperty(field);
        expect(typeOf(value), `${name}.${field}`).toBe(PLUGIN_FIELDS[field]);
      }
      // k9s's key forms: a lower-case letter, Shift-LETTER, Ctrl-LETTER; one plugin per key.
      expect(plugin.shortCut).toMatch(/^([a-z]|Shift-[A-Z]|Ctrl-[A-Z])$/);
      expect(shortcuts.has(plugin.shortCut as string), `${name}: its key is another plugin's`).toBe(false);
      shortcuts.add(plugin.shortCut as string);
      expect(plugin.scopes).toEqual(K9S_SCOPES);
      expect(plugin.command).toBe('vconsole');
    }
    expect(K9S_SCOPES).toEqual(['virtualmachineinstances', 'virtualmachines']);
  });

  it("opens the screen, attaches the serial console in k9s's terminal, and takes a screenshot", () => {
    const lines = Object.values(plugins).map((plugin) => [(plugin.args as string[]).join(' '), plugin.background]);
    expect(lines).toEqual([
      ['open kubevirt:$NAME -n $NAMESPACE --context $CONTEXT', false],
      ['console kubevirt:$NAME -n $NAMESPACE --context $CONTEXT', false],
      ['screenshot kubevirt:$NAME -n $NAMESPACE --context $CONTEXT', true],
    ]);
  });

  it("each command line, filled in as k9s fills it, is one vconsole's parser accepts", () => {
    for (const plugin of Object.values(plugins)) {
      const argv = (plugin.args as string[]).map(substitute);
      const parsed = parsedBy(argv);
      expect(parsed.command).toBe(argv[0]);
      expect(parsed.args.flat()).toEqual(['kubevirt:vm-a']);
      expect(parsed.options).toMatchObject({ namespace: 'prod', context: 'lab' });
    }
    // The check itself refuses what vconsole's parser refuses.
    expect(() => parsedBy(['open', 'kubevirt:vm-a', '--no-such-flag'])).toThrow(/unknown option/);
  });
});
