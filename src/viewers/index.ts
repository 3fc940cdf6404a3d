// Viewer detection, argument building and supervision. Everything but
// system-environment.ts and viewer-process.ts is pure over a ViewerEnvironment.
export type { HostPlatform, ViewerCandidate, ViewerCommand, ViewerEnvironment, ViewerId, ViewerTarget } from './types.js';
export { PLATFORM_NAMES, PREFERENCE_ORDER, VIEWER_CHOICES, VIEWER_NAMES, installHint, lookedFor } from './catalog.js';
export { detectViewers, identifyExecutable } from './detect.js';
export { identifyVncviewerOutput, parseRemoteViewerVersion } from './identify.js';
export { bracketHost, buildViewerCommand, formatCommandLine, quoteArgument } from './command.js';
export { chooseViewer, parseViewerRequest, selectViewer } from './choose.js';
export type { ParsedViewerRequest, ViewerChoice, ViewerChoiceSource, ViewerRequest } from './choose.js';
export { PROBE_TIMEOUT_MS, hostPlatform, runProbe, systemViewerEnvironment } from './system-environment.js';
export { ViewerProcess, describeViewerExit, launchViewer } from './viewer-process.js';
export type { LaunchOptions, ViewerExit, ViewerOutcome } from './viewer-process.js';
