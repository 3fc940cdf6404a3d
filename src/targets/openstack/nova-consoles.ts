// The remote consoles Nova serves, as data: what vconsole asks for each, from which microversion,
// and how it names each to the user (nova.ts asks for them).

/** The first microversion with `POST /servers/{id}/remote-consoles`. */
export const REMOTE_CONSOLES_MICROVERSION = '2.6';

/** The remote consoles vconsole asks Nova for, by what each is to the user. */
export type NovaConsoleKind = 'vnc' | 'serial' | 'spice' | 'rdp' | 'mks';
interface NovaConsoleSpec {
  protocol: string;
  type: string;
  /** The server action that asks for it before microversion 2.6; none for a console born later. */
  action?: string;
  /** The microversion remote-consoles needs for it (Nova's request schema); 2.6 unless said. */
  microversion?: string;
  shownAs: string;
  /** `an` before shownAs where `a` reads wrong (an RDP console). */
  article?: string;
  offered: string;
  setting: string;
}
export const NOVA_CONSOLES: Record<NovaConsoleKind, NovaConsoleSpec> = {
  vnc: {
    protocol: 'vnc',
    type: 'novnc',
    action: 'os-getVNCConsole',
    shownAs: 'VNC',
    offered: 'noVNC',
    setting: 'nova.conf [vnc] enabled, novncproxy_base_url',
  },
  serial: {
    protocol: 'serial',
    type: 'serial',
    action: 'os-getSerialConsole',
    shownAs: 'serial',
    offered: 'serial',
    setting: 'nova.conf [serial_console] enabled',
  },
  spice: {
    protocol: 'spice',
    type: 'spice-html5',
    action: 'os-getSPICEConsole',
    shownAs: 'SPICE',
    offered: 'SPICE',
    setting: 'nova.conf [spice] enabled, html5proxy_base_url',
  },
  // Hyper-V only (FreeRDP-WebConnect's wsgate serves the page); Nova 29.0.0 (Caracal) removed it.
  rdp: {
    protocol: 'rdp',
    type: 'rdp-html5',
    action: 'os-getRDPConsole',
    shownAs: 'RDP',
    article: 'an',
    offered: 'RDP (rdp-html5)',
    setting: 'Hyper-V compute hosts with nova.conf [rdp] enabled, html5_proxy_base_url; Nova 29.0.0 (Caracal) and later have none',
  },
  // VMware vSphere only; remote-consoles accepts protocol mks from microversion 2.8, no server action has it.
  mks: {
    protocol: 'mks',
    type: 'webmks',
    microversion: '2.8',
    shownAs: 'WebMKS',
    offered: 'WebMKS',
    setting: 'VMware compute hosts with nova.conf [mks] enabled, mksproxy_base_url',
  },
};
