/**
 * What the TUI asks of the command that shows it: the one vocabulary from a key to its effect.
 * A key's reducer (keys.ts; the picker's outcome in app.tsx) returns a request, and the App
 * hands it as it is to the command's handler of the same name. `ConsoleHandlers` has a handler
 * for every name, so a request no handler answers is a type error where the command builds its
 * map (src/commands/open/actions.ts). A new request is one entry here and one handler there.
 * Types and one function, no ink or react.
 */

/** Each request the TUI makes, by name, and what it carries besides its name. */
interface ConsoleRequests {
  /** Enter or `o` on a listening screen, `r` on a failed viewer: its viewer, again. */
  open: { sessionId: number };
  /**
   * Enter or `o` on a listening serial console: the command suspends the TUI, gives the
   * terminal to the console and resumes the TUI when the user detaches.
   */
  attach: { sessionId: number };
  /** `r` on a failed session: it starts again. */
  retry: { sessionId: number };
  /** `x`: the session, its viewer and what follows it end; the others go on. */
  close: { sessionId: number };
  /** `s` on a listening VNC row: a PNG of its screen; the handler answers where it went. */
  screenshot: { sessionId: number };
  /**
   * `p` (Enter on its prompt, or a bracketed paste) and a broadcast's typing: text typed into
   * each console, VNC as keys, serial as bytes (`\n` as the line end the console expects).
   * `broadcast`: one piece of a broadcast, logged once it ends (`broadcast-end`), not piece by piece.
   */
  paste: { sessionIds: number[]; text: string; broadcast?: boolean };
  /** `K`'s menu and a broadcast's special keys: a chord by name (`ctrl-alt-delete`, `ret`) sent to each console. */
  'send-key': { sessionIds: number[]; key: string; broadcast?: boolean };
  /** `y` after `P`'s menu: the VM of the session powered (`start`, `restart`, ...) through its provider. */
  power: { sessionId: number; power: string };
  /** Esc ends a broadcast: one log line per console says what it was sent. */
  'broadcast-end': { sessionIds: number[] };
  /** `a`: one more target, typed or picked. */
  add: { text: string };
  /** `S`: the targets open now saved as workspace `name`; the handler answers what it saved. */
  'save-workspace': { name: string };
  /** `q` or Ctrl+C. The TUI does not exit by itself: the command shuts down and unmounts it. */
  quit: Record<never, never>;
}

export type ConsoleRequestName = keyof ConsoleRequests;

/** One request: its name as `action`, and what that name carries. */
type ConsoleRequestOf<A extends ConsoleRequestName> = { action: A } & ConsoleRequests[A];

export type ConsoleRequest = { [A in ConsoleRequestName]: ConsoleRequestOf<A> }[ConsoleRequestName];

/**
 * What a handler answers: nothing, or what to tell the user (the notice line), at once or once
 * done. A throw or a rejection is told on the notice line too.
 */
type HandlerAnswer = void | string | Promise<void | string>;

/** A handler for every request: the command that shows the TUI supplies it whole. */
export type ConsoleHandlers = { readonly [A in ConsoleRequestName]: (request: ConsoleRequestOf<A>) => HandlerAnswer };

/**
 * Hands a request to its handler. What the handler answers, and any error it throws or rejects
 * with, goes to `tell` (the App's notice line); an error is never left unhandled.
 */
export function dispatch<A extends ConsoleRequestName>(
  handlers: ConsoleHandlers,
  request: ConsoleRequestOf<A>,
  tell: { notice(text: string): void; error(err: unknown): void },
): void {
  const answered = (answer: void | string): void => {
    if (typeof answer === 'string') tell.notice(answer);
  };
  try {
    const handler: (request: ConsoleRequestOf<A>) => HandlerAnswer = handlers[request.action];
    const answer = handler(request);
    if (answer instanceof Promise) answer.then(answered, (err: unknown) => tell.error(err));
    else answered(answer);
  } catch (err) {
    tell.error(err);
  }
}
