// The VNC page: noVNC's RFB client on the websocket vconsole bridges to the session's port.
import RFB from '@novnc/novnc';
import { button, consoleArea, fullscreenButton, keepConnected, toolbar } from './reconnecting-socket.js';

const screen = consoleArea();
let rfb: RFB | undefined;
/** The VNC password typed once: reconnects offer it again instead of asking. */
let password: string | undefined;

const clipboardPanel = document.createElement('div');
clipboardPanel.id = 'clipboard';
const clipboardText = document.createElement('textarea');
clipboardText.placeholder = 'Text copied in the VM shows here; type or paste here and send it to the VM.';
clipboardPanel.append(
  clipboardText,
  button('Send to VM', () => rfb?.clipboardPasteFrom(clipboardText.value)),
);
document.body.insertBefore(clipboardPanel, screen);

toolbar().append(
  button('Ctrl+Alt+Del', () => {
    rfb?.sendCtrlAltDel();
    rfb?.focus();
  }),
  button('Clipboard', () => clipboardPanel.classList.toggle('shown')),
  fullscreenButton(),
);

const passwordOverlay = document.createElement('div');
passwordOverlay.id = 'password';
const passwordForm = document.createElement('form');
const passwordInput = document.createElement('input');
passwordInput.type = 'password';
passwordInput.autocomplete = 'off';
passwordInput.placeholder = 'VNC password';
const passwordSubmit = document.createElement('button');
passwordSubmit.type = 'submit';
passwordSubmit.textContent = 'Connect';
passwordForm.append('The console asks for a password:', passwordInput, passwordSubmit);
passwordOverlay.append(passwordForm);
screen.append(passwordOverlay);
passwordForm.addEventListener('submit', (event) => {
  event.preventDefault();
  password = passwordInput.value;
  passwordInput.value = '';
  passwordOverlay.classList.remove('shown');
  rfb?.sendCredentials({ password });
});

keepConnected({
  attach(socket, connected) {
    const client = new RFB(screen, socket, password === undefined ? { shared: true } : { shared: true, credentials: { password } });
    client.scaleViewport = true;
    client.resizeSession = false;
    client.background = '#202124';
    client.addEventListener('connect', () => {
      connected();
      client.focus();
    });
    client.addEventListener('credentialsrequired', () => {
      passwordOverlay.classList.add('shown');
      passwordInput.focus();
    });
    client.addEventListener('securityfailure', () => {
      // A wrong password: ask again on the next attempt.
      password = undefined;
    });
    client.addEventListener('clipboard', (event) => {
      clipboardText.value = (event as CustomEvent<{ text: string }>).detail.text;
    });
    socket.addEventListener('close', () => passwordOverlay.classList.remove('shown'));
    rfb = client;
  },
});
