import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfigPath, expandAlias, loadConfig, parseConfig } from './config.js';
import { UsageError } from '../errors.js';
import { PROVIDERS } from '../targets/registry.js';
import type { ConsoleProvider } from '../targets/types.js';

describe('config file', () => {
  it('reads defaults and aliases', async () => {
    const config = await parseConfig(
      'defaults:\n  provider: openstack\n  cloud: prod\n  listen: 127.0.0.1\naliases:\n  web: openstack:web-01\n',
      'c.yaml',
    );
    expect(config.defaults).toEqual({ provider: 'openstack', cloud: 'prod', listen: '127.0.0.1' });
    expect(expandAlias('web', config)).toBe('openstack:web-01');
    expect(expandAlias('db', config)).toBe('db');
  });

  it('rejects an unknown key, naming it and the known ones', async () => {
    await expect(parseConfig('defaults:\n  colour: red\n', 'c.yaml')).rejects.toThrow(/unknown key "defaults.colour"/);
    await expect(parseConfig('default:\n  provider: demo\n', 'c.yaml')).rejects.toThrow(/unknown key "default"/);
  });

  it('rejects a bad value with what is allowed', async () => {
    try {
      await parseConfig('defaults:\n  provider: vmware\n', 'c.yaml');
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/bad value "vmware" for "defaults.provider"/);
      expect((err as { hint?: string }).hint).toMatch(/kubevirt, openstack, libvirt or demo/);
      expect((err as { exitCode?: number }).exitCode).toBe(2);
    }
  });

  it('takes defaults.share as a boolean only', async () => {
    expect((await parseConfig('defaults:\n  share: true\n', 'c.yaml')).defaults).toEqual({ share: true });
    await expect(parseConfig('defaults:\n  share: "yes"\n', 'c.yaml')).rejects.toThrow(/bad value "yes" for "defaults.share"/);
  });

  it('looks in $XDG_CONFIG_HOME, else ~/.config', () => {
    expect(defaultConfigPath({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/vconsole/config.yaml');
    expect(defaultConfigPath({}, '/home/u')).toBe('/home/u/.config/vconsole/config.yaml');
  });

  it('is under %APPDATA% on Windows, else the roaming profile under the home directory', () => {
    const appData = 'C:\\Users\\u\\AppData\\Roaming';
    expect(defaultConfigPath({ APPDATA: appData }, 'C:\\Users\\u', 'win32')).toBe(`${appData}\\vconsole\\config.yaml`);
    expect(defaultConfigPath({}, 'C:\\Users\\u', 'win32')).toBe(`${appData}\\vconsole\\config.yaml`);
    expect(defaultConfigPath({ XDG_CONFIG_HOME: 'D:\\cfg', APPDATA: appData }, 'C:\\Users\\u', 'win32')).toBe(
      'D:\\cfg\\vconsole\\config.yaml',
    );
    expect(defaultConfigPath({ APPDATA: appData }, '/home/u', 'linux')).toBe('/home/u/.config/vconsole/config.yaml');
  });

  it('is optional by default but required when named', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-config-'));
    try {
      expect(await loadConfig(undefined, { XDG_CONFIG_HOME: dir })).toEqual({ defaults: {}, aliases: {} });
      await expect(loadConfig(path.join(dir, 'missing.yaml'), {})).rejects.toThrow(/does not exist/);
      fs.mkdirSync(path.join(dir, 'vconsole'));
      fs.writeFileSync(path.join(dir, 'vconsole', 'config.yaml'), 'aliases:\n  a: demo:a\n');
      expect((await loadConfig(undefined, { XDG_CONFIG_HOME: dir })).aliases).toEqual({ a: 'demo:a' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('accepts as defaults.provider exactly the registry providers that may own bare names', async () => {
    const lab: ConsoleProvider = {
      id: 'lab',
      schemes: ['lab'],
      syntax: [],
      consoleTypes: ['vnc'],
      bareNames: true,
      resolve: () => expect.unreachable(),
    };
    const config = await parseConfig('defaults:\n  provider: lab\n', 'c.yaml', [...PROVIDERS, lab]);
    expect(config.defaults.provider).toBe('lab');
    await expect(parseConfig('defaults:\n  provider: lab\n', 'c.yaml')).rejects.toThrow(/bad value "lab"/);
    const err = await parseConfig('defaults:\n  provider: tcp\n', 'c.yaml', [...PROVIDERS, lab]).catch((e: unknown) => e);
    expect((err as UsageError).hint).toBe('use kubevirt, openstack, libvirt, demo or lab');
  });

  describe('a named config that is not a file', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vconsole-config-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('--config naming a directory is a usage error saying so', async () => {
      const err = await loadConfig(dir, {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe(`config file ${dir} is a directory`);
      expect((err as UsageError).hint).toBe('--config must name a YAML file');
    });

    it('reads VCONSOLE_CONFIG, and names it when the file is missing or a directory', async () => {
      fs.writeFileSync(path.join(dir, 'env.yaml'), 'aliases:\n  e: demo:e\n');
      expect((await loadConfig(undefined, { VCONSOLE_CONFIG: path.join(dir, 'env.yaml') })).aliases).toEqual({ e: 'demo:e' });
      await expect(loadConfig(undefined, { VCONSOLE_CONFIG: path.join(dir, 'nope.yaml') })).rejects.toMatchObject({
        hint: 'check VCONSOLE_CONFIG',
      });
      await expect(loadConfig(undefined, { VCONSOLE_CONFIG: dir })).rejects.toMatchObject({
        hint: 'VCONSOLE_CONFIG must name a YAML file',
        exitCode: 2,
      });
    });

    it('refuses a config file over 1 MiB, naming it and the cap, without parsing it', async () => {
      const big = path.join(dir, 'big.yaml');
      fs.writeFileSync(big, `aliases:\n${'  a: demo:a\n'.repeat(100_000)}`);
      const err = await loadConfig(big, {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe(`config file ${big} is larger than 1 MiB`);
    });

    it.skipIf(process.platform === 'win32')('refuses /dev/zero as a config file as not a regular file', async () => {
      const err = await loadConfig('/dev/zero', {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toBe('config file /dev/zero is not a regular file (a device)');
    });

    it('--config wins over VCONSOLE_CONFIG', async () => {
      fs.writeFileSync(path.join(dir, 'flag.yaml'), 'aliases:\n  f: demo:f\n');
      const config = await loadConfig(path.join(dir, 'flag.yaml'), { VCONSOLE_CONFIG: path.join(dir, 'nope.yaml') });
      expect(config.aliases).toEqual({ f: 'demo:f' });
    });
  });
});
