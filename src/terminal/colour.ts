/**
 * Whether vconsole colours what it writes, and the only colours it uses. NO_COLOR (no-color.org:
 * any non-empty value) turns colour off; FORCE_COLOR turns it on without a terminal
 * (`FORCE_COLOR=0` or `false` turns it off), as chalk, which Ink draws with, reads it. The
 * palette leaves out blue and dark grey: they vanish on a dark background (blue) or a light
 * one (grey); emphasis is bold, inverse or dim, which read on both.
 */

/** The foreground colours that read on dark and on light backgrounds. */
export type Colour = 'red' | 'yellow' | 'green' | 'cyan' | 'magenta';

/** True when NO_COLOR asks for no colour. */
export function noColour(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.NO_COLOR);
}

/**
 * The colour to draw with, or undefined (the terminal's own foreground) under NO_COLOR. Every
 * colour the TUI draws goes through here: with NO_COLOR its frames carry no colour code, while
 * bold, inverse and dim still mark the selection and the headings.
 */
export function tone(colour: Colour | undefined, env: NodeJS.ProcessEnv = process.env): Colour | undefined {
  return colour === undefined || noColour(env) ? undefined : colour;
}
