// `vconsole agent --stdio` (hidden): the far end of --via. Run on the bastion by the near
// vconsole's ssh; it resolves, checks, lists and dials there, with the bastion's own config,
// kubeconfig and clouds.yaml, and carries each console over its stdio. It ends, closing every
// console, when its stdin ends (ssh gone, or Ctrl+C on the near side).
import { createHash } from 'node:crypto';
import { PassThrough, type Duplex } from 'node:stream';
import { loadConfig, type VconsoleConfig } from '../config/index.js';
import { UsageError } from '../errors.js';
import { CAPABILITY_NAMES, type CapabilityName, type ConsoleTarget, offeredCapabilities } from '../targets/index.js';
import { VERSION } from '../version.js';
import { ViaConnection, type FarHandlers, type MuxStream, AGENT_PREAMBLE, VIA_PROTOCOL, type FarTarget } from '../via/index.js';
import type { LogLevel } from '../proxy/index.js';
import { runListCommand } from './list.js';
import { consolePasswordOf } from '../streams/console-password.js';
import { resolveTargets, targetOptionsFrom } from './target-options.js';
import { selectTargets } from './target-selection.js';
import type { SelectionFlags } from './selector-flags.js';
import type { TargetFlags } from './flags.js';

/** A pre-flight the near side asked for gives up after this long (the near side may be gone by then). */
const FAR_CHECK_TIMEOUT_MS = 120_000;

interface Held {
  target: ConsoleTarget;
  checked: boolean;
}

interface AgentIo {
  stdin: NodeJS.ReadableStream & { pause(): unknown };
  stdout: NodeJS.WritableStream;
  exit(code: number): void;
}

/** Serves one near vconsole on stdin/stdout until stdin ends. */
export async function runAgentCommand(io: AgentIo, config?: VconsoleConfig): Promise<void> {
  const loaded = config ?? (await loadConfig(undefined));
  // The agent is the far end: a `defaults.via` of the bastion's own config is not followed again from here.
  const farConfig: VconsoleConfig = { ...loaded, defaults: { ...loaded.defaults, via: undefined } };
  io.stdout.write(AGENT_PREAMBLE);
  const held = new Map<number, Held>();
  let nextHandle = 1;
  const hold = (target: ConsoleTarget): FarTarget => {
    const handle = nextHandle++;
    held.set(handle, { target, checked: false });
    return describe(handle, target);
  };
  const heldTarget = (body: Record<string, unknown>): Held => {
    const entry = held.get(Number(body.handle));
    if (!entry) throw new UsageError('no such console on this connection');
    return entry;
  };
  const flagsOf = (body: Record<string, unknown>) =>
    (body.flags && typeof body.flags === 'object' ? body.flags : {}) as TargetFlags & SelectionFlags;
  const inputsOf = (body: Record<string, unknown>) => (Array.isArray(body.inputs) ? body.inputs.filter((i) => typeof i === 'string') : []);

  const handlers: FarHandlers = {
    async request(op, body) {
      switch (op) {
        case 'select': {
          const flags = flagsOf(body);
          const found = await selectTargets(inputsOf(body), flags, targetOptionsFrom(flags, farConfig), farConfig);
          return { named: found.named.map(hold), selected: found.selected.map(hold) };
        }
        case 'resolve': {
          const flags = flagsOf(body);
          return resolveTargets(inputsOf(body), targetOptionsFrom(flags, farConfig), farConfig).map(hold);
        }
        case 'check': {
          const entry = heldTarget(body);
          await entry.target.check?.(AbortSignal.timeout(FAR_CHECK_TIMEOUT_MS));
          entry.checked = true;
          return describe(Number(body.handle), entry.target);
        }
        case 'capability': {
          const entry = heldTarget(body);
          const name = String(body.name) as CapabilityName;
          const capability = CAPABILITY_NAMES.includes(name) ? entry.target.capabilities?.[name] : undefined;
          if (!capability) throw new UsageError(`${entry.target.name} cannot do ${String(body.name)} here`);
          const args = Array.isArray(body.args) ? (body.args as unknown[]) : [];
          return (capability as (signal: AbortSignal, ...args: unknown[]) => Promise<unknown>)(
            AbortSignal.timeout(FAR_CHECK_TIMEOUT_MS),
            ...args,
          );
        }
        case 'release': {
          const entry = held.get(Number(body.handle));
          held.delete(Number(body.handle));
          await entry?.target.release?.();
          return {};
        }
        case 'list': {
          const out = collected();
          const err = collected();
          const code = await runListCommand(flagsOf(body), farConfig, { stdout: out.stream, stderr: err.stream });
          return { stdout: out.text(), stderr: err.text(), code };
        }
        default:
          throw new UsageError(`the agent knows no request "${op}"`, 'use the same vconsole version on both ends');
      }
    },
    async open(body, stream, log) {
      const entry = heldTarget(body);
      const controller = new AbortController();
      stream.once('close', () => controller.abort());
      const context = { signal: controller.signal, log, preserveSession: body.preserveSession === true };
      if (!entry.checked) {
        await entry.target.check?.(controller.signal);
        entry.checked = true;
      }
      const upstream = await entry.target.dial(context);
      if (controller.signal.aborted) {
        upstream.destroy();
        return;
      }
      carry(upstream, stream, log);
      // A password of this dial's own (Proxmox VE's one-time VNC password) goes with the stream, to the near hub's client.
      const consolePassword = consolePasswordOf(upstream);
      return consolePassword === undefined ? undefined : { consolePassword };
    },
  };
  const connection = new ViaConnection(io.stdin as never, io.stdout as never, { far: handlers, lost: () => new Error('stdin ended') });
  connection.sayHello({ protocol: VIA_PROTOCOL, version: VERSION });
  await new Promise<void>((resolve) => connection.once('closed', () => resolve()));
  await Promise.allSettled([...held.values()].map(async (entry) => entry.target.release?.()));
  io.exit(0);
}

/** Bytes both ways between the console and its stream; either ending ends the other. */
function carry(upstream: Duplex, stream: MuxStream, log: (level: LogLevel, message: string) => void): void {
  upstream.pipe(stream);
  stream.pipe(upstream);
  upstream.once('error', (err) => {
    log('debug', `console stream failed: ${err.message}`);
    stream.destroy(err);
  });
  upstream.once('close', () => stream.destroy());
  stream.once('close', () => upstream.destroy());
  stream.once('error', () => upstream.destroy());
}

function describe(handle: number, target: ConsoleTarget): FarTarget {
  const { identity, ...facts } = target.facts;
  return {
    handle,
    input: target.input,
    name: target.name,
    provider: target.provider,
    facts: { ...facts, ...(identity === undefined ? {} : { identity: createHash('sha256').update(identity).digest('hex') }) },
    capabilities: offeredCapabilities(target.capabilities),
  };
}

/** A writable that keeps what is written, as text (a listing's lines). */
function collected(): { stream: NodeJS.WritableStream; text(): string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}
