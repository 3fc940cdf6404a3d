import { describe, expect, it } from 'vitest';
import { VconsoleError } from '../../errors.js';
import { thrownBy } from '../../../test/support/thrown.js';
import { checkedConsoleProxy } from './console-proxy.js';

const TICKET = 'PVEVNC:65A1B2C3::c2VjcmV0LXRpY2tldA==';

describe('checkedConsoleProxy', () => {
  it('takes vncproxy and termproxy answers as Proxmox VE gives them (a port as a number or digits)', () => {
    expect(checkedConsoleProxy('vncproxy', { port: 5900, ticket: TICKET, user: 'root@pam', password: 'pw123456', cert: 'x' })).toEqual({
      port: 5900,
      ticket: TICKET,
      user: 'root@pam',
      password: 'pw123456',
    });
    expect(checkedConsoleProxy('termproxy', { port: '5901', ticket: TICKET, user: 'root@pam' })).toMatchObject({ port: 5901 });
  });

  it.each([
    [null, /termproxy with no object/],
    [['x'], /termproxy with no object/],
    [{ port: { port: 1 }, ticket: TICKET, user: 'u' }, /a port that is not a port number/],
    [{ port: 70000, ticket: TICKET, user: 'u' }, /a port that is not a port number/],
    [{ port: 5900, ticket: 12345678, user: 'u' }, /a ticket that is not text/],
    [{ port: 5900, ticket: TICKET, user: 7 }, /a user that is not text/],
    [{ port: 5900, ticket: TICKET, user: 'u', password: 87654321 }, /a password that is not text/],
  ])('refuses %j in one line naming the field, never its value', (answer, message) => {
    const err = thrownBy(() => checkedConsoleProxy('termproxy', answer));
    expect(err).toBeInstanceOf(VconsoleError);
    const said = `${(err as VconsoleError).message} ${(err as VconsoleError).hint}`;
    expect(said).toMatch(message);
    expect(said).not.toMatch(/12345678|87654321|PVEVNC|object Object/);
  });
});
