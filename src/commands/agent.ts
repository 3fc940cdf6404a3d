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

/** What the agent holds for one near vconsole: its config and the consoles it handed out. */
class AgentHoldings {
  private readonly held = new Map<number, Held>();
  private nextHandle = 1;

  constructor(readonly farConfig: VconsoleConfig) {}

  /** Holds a target for the near side and describes it under its new handle. */
  hold = (target: ConsoleTarget): FarTarget => {
    const handle = this.nextHandle++;
    this.held.set(handle, { target, checked: false });
    return describe(handle, target);
  };

  /** The held target a request names by its handle. */
  get(body: Record<string, unknown>): Held {
    const entry = this.held.get(Number(body.handle));
    if (!entry) throw new UsageError('no such console on this connection');
    return entry;
  }

  /** Lets go of the target a request names (if held). */
  async release(body: Record<string, unknown>): Promise<void> {
    const entry = this.held.get(Number(body.handle));
    this.held.delete(Number(body.handle));
    await entry?.target.release?.();
  }

  async releaseAll(): Promise<void> {
    await Promise.allSettled([...this.held.values()].map(async (entry) => entry.target.release?.()));
  }
}

const flagsOf = (body: Record<string, unknown>) =>
  (body.flags && typeof body.flags === 'object' ? body.flags : {}) as TargetFlags & SelectionFlags;
const inputsOf = (body: Record<string, unknown>) => (Array.isArray(body.inputs) ? body.inputs.filter((i) => typeof i === 'string') : []);

/** The near side's requests, each with what answers it: a new request is one more entry. */
const AGENT_REQUESTS: Record<string, (body: Record<string, unknown>, agent: AgentHoldings) => Promise<unknown>> = {
  async select(body, agent) {
    const flags = flagsOf(body);
    const found = await selectTargets(inputsOf(body), flags, targetOptionsFrom(flags, agent.farConfig), agent.farConfig);
    return { named: found.named.map(agent.hold), selected: found.selected.map(agent.hold) };
  },
  async resolve(body, agent) {
    const flags = flagsOf(body);
    return resolveTargets(inputsOf(body), targetOptionsFrom(flags, agent.farConfig), agent.farConfig).map(agent.hold);
  },
  async check(body, agent) {
    const entry = agent.get(body);
    await entry.target.check?.(AbortSignal.timeout(FAR_CHECK_TIMEOUT_MS));
    entry.checked = true;
    return describe(Number(body.handle), entry.target);
  },
  async capability(body, agent) {
    const entry = agent.get(body);
    const name = String(body.name) as CapabilityName;
    const capability = CAPABILITY_NAMES.includes(name) ? entry.target.capabilities?.[name] : undefined;
    if (!capability) throw new UsageError(`${entry.target.name} cannot do ${String(body.name)} here`);
    const args = Array.isArray(body.args) ? (body.args as unknown[]) : [];
    return (capability as (signal: AbortSignal, ...args: unknown[]) => Promise<unknown>)(
      AbortSignal.timeout(FAR_CHECK_TIMEOUT_MS),
      ...args,
    );
  },
  async release(body, agent) {
    await agent.release(body);
    return {};
  },
  async list(body, agent) {
    const out = collected();
    const err = collected();
    const code = await runListCommand(flagsOf(body), agent.farConfig, { stdout: out.stream, stderr: err.stream });
    return { stdout: out.text(), stderr: err.text(), code };
  },
};

/** Dials a held console for the near side and carries it on stream; a dial's own password goes back with it. */
async function openHeld(
  entry: Held,
  body: Record<string, unknown>,
  stream: MuxStream,
  log: (level: LogLevel, message: string) => void,
): Promise<{ consolePassword: string } | undefined> {
  const controller = new AbortController();
  stream.once('close', () => controller.abort());
  const context = { signal: controller.signal, log, preserveSession: body.preserveSession === true, replay: body.replay !== false };
  if (!entry.checked) {
    await entry.target.check?.(controller.signal);
    entry.checked = true;
  }
  const upstream = await entry.target.dial(context);
  if (controller.signal.aborted) {
    upstream.destroy();
    return undefined;
  }
  carry(upstream, stream, log);
  // A password of this dial's own (Proxmox VE's one-time VNC password) goes with the stream, to the near hub's client.
  const consolePassword = consolePasswordOf(upstream);
  return consolePassword === undefined ? undefined : { consolePassword };
}

/** Serves one near vconsole on stdin/stdout until stdin ends. */
export async function runAgentCommand(io: AgentIo, config?: VconsoleConfig): Promise<void> {
  const loaded = config ?? (await loadConfig(undefined));
  // The agent is the far end: a `defaults.via` of the bastion's own config is not followed again from here.
  const agent = new AgentHoldings({ ...loaded, defaults: { ...loaded.defaults, via: undefined } });
  io.stdout.write(AGENT_PREAMBLE);
  const handlers: FarHandlers = {
    request(op, body) {
      const answer = Object.hasOwn(AGENT_REQUESTS, op) ? AGENT_REQUESTS[op] : undefined;
      if (!answer)
        return Promise.reject(new UsageError(`the agent knows no request "${op}"`, 'use the same vconsole version on both ends'));
      return answer(body, agent);
    },
    open: async (body, stream, log) => openHeld(agent.get(body), body, stream, log),
  };
  const connection = new ViaConnection(io.stdin as never, io.stdout as never, { far: handlers, lost: () => new Error('stdin ended') });
  connection.sayHello({ protocol: VIA_PROTOCOL, version: VERSION });
  await new Promise<void>((resolve) => connection.once('closed', () => resolve()));
  await agent.releaseAll();
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
