/**
 * The viewers as the commands see them: the catalog of viewers, choosing and detecting one, the
 * command line that starts it, its connection file, the supervisor and router that keep viewers
 * open, and the browser opener. The browser viewers (the page server) are loaded lazily from their
 * own module (a lazy import() may name a deep module). No command loads this for its `--help`.
 * src/commands import src/viewers statically only through here (docs/ARCHITECTURE.md, "Walls").
 */
export { describeStartFailure, startBrowser } from './browser/browser-opener.js';
export type { BrowserLaunch } from './browser/browser-opener.js';
export {
  BROWSER_CONSOLE_TYPES,
  PLATFORM_NAMES,
  PREFERENCE_ORDER,
  VIEWER_CHOICES,
  VIEWER_CONSOLE_TYPES,
  VIEWER_OPTIONAL_TYPES,
  candidateShows,
  installHint,
  lookedFor,
} from './catalog.js';
export { chooseViewer, selectViewer, viewerArgsNotice } from './choose.js';
export type { ViewerChoice } from './choose.js';
export { buildViewerCommand, formatCommandLine } from './command.js';
export { removeConnectionFile, writeConnectionFile } from './connection-file.js';
export { detectViewers } from './detect.js';
export { displayHere } from './display.js';
export type { DisplayVerdict, SshLogin } from './display.js';
export { systemViewerEnvironment } from './system-environment.js';
export type { HostPlatform, ViewerCandidate, ViewerCommand, ViewerEnvironment, ViewerId, ViewerTarget } from './types.js';
export { planViewers, viewerConsoleType } from './viewer-plan.js';
export { describeViewerExit, launchViewer } from './viewer-process.js';
export type { ViewerProcess } from './viewer-process.js';
export { ViewerRouter } from './viewer-router.js';
export type { ViewerLauncher } from './viewer-router.js';
export { ViewerSupervisor } from './viewer-supervisor.js';
export type { ViewerStatusEvent } from './viewer-supervisor.js';
