/**
 * How a KubeVirt console ends, in KubeVirt's terms. virt-handler keeps one session per VMI and
 * console: a new connection closes the old one, and a VMI that stops closes its sessions, both
 * with the TCP connection closed and no close frame (virt-handler rest/console.go; virt-api
 * passes the close on the same way). virtctl words that close the same way (console.go: "VM
 * powered off, another user connected, or network issues"). There is no token to be wrong.
 */
import { ConsoleEndedError, describeWebSocketEnding, type WebSocketEnding } from '../../errors.js';

const KUBEVIRT_CONSOLE_CLOSED =
  'the console closed: the VM stopped, or another client opened its console (KubeVirt keeps one session per VM)';

/** virt-handler's close: the VMI stopped, or a newer connection to its console replaced this one. */
export class KubevirtConsoleClosedError extends ConsoleEndedError {
  constructor() {
    super(KUBEVIRT_CONSOLE_CLOSED);
  }
}

export function describeKubevirtEnding(ending: WebSocketEnding): ConsoleEndedError {
  // A reset is the network's (or a proxy's) doing, not virt-handler's close: said as such.
  if ((ending.code === 1006 && !ending.socketErrorCode) || ending.code === 1005) return new KubevirtConsoleClosedError();
  // A quick close is no refused token on KubeVirt (it has none): the close code speaks alone.
  return describeWebSocketEnding({ ...ending, soonAfterUpgrade: false });
}
