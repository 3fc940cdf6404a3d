import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { customColumnsTemplate, jsonpathTemplate, outputTemplate } from './output-template.js';

const VMS = [
  { target: 'prod/db-1', name: 'db-1', namespace: 'prod', state: 'Running', console: true },
  { target: 'prod/db-2', name: 'db-2', namespace: 'prod', state: 'Stopped', console: false },
];

describe("-o jsonpath=, as kubectl's", () => {
  it('prints fields of the List, each result of [*] apart by a space, and text as it is', () => {
    expect(jsonpathTemplate('{.items[*].target}').list(VMS)).toBe('prod/db-1 prod/db-2');
    expect(jsonpathTemplate('first: {.items[0].name}, last: {.items[-1].name}').list(VMS)).toBe('first: db-1, last: db-2');
    expect(jsonpathTemplate('{.kind}').list(VMS)).toBe('List');
  });

  it('ranges over a list with quoted literals, filters with == and !=, and reads @', () => {
    const rows = jsonpathTemplate('{range .items[*]}{@.name}{"\\t"}{.state}{"\\n"}{end}').list(VMS);
    expect(rows).toBe('db-1\tRunning\ndb-2\tStopped\n');
    expect(jsonpathTemplate('{.items[?(@.state=="Running")].name}').list(VMS)).toBe('db-1');
    expect(jsonpathTemplate("{.items[?(@.state!='Running')].name}").list(VMS)).toBe('db-2');
    expect(jsonpathTemplate('{.items[?(@.console==true)].target}').list(VMS)).toBe('prod/db-1');
  });

  it('prints nothing for a key that is not there, an object as JSON, and no control character', () => {
    expect(jsonpathTemplate('[{.items[0].missing}]').list(VMS)).toBe('[]');
    expect(jsonpathTemplate('{.items[1]}').list([{ a: 1 }, { b: [2] }])).toBe('{"b":[2]}');
    expect(jsonpathTemplate('{.name}').one({ name: 'evil\u001b]0;title\u0007' })).not.toContain('\u001b');
  });

  it('refuses a template it cannot read, as a usage error naming it', () => {
    for (const bad of ['{.items[0', '{range .items[*]}{.name}', '{end}', '{.items[x]}', '{"unclosed}'])
      expect(() => jsonpathTemplate(bad), bad).toThrow(UsageError);
    expect(() => jsonpathTemplate('{.items[x]}')).toThrow(/bad jsonpath template "\{\.items\[x\]\}"/);
  });
});

describe('-o custom-columns=', () => {
  it('prints a header and a row per object, <none> where a value is not there', () => {
    expect(customColumnsTemplate('VM:.target,STATE:{.state},ZONE:.zone').list(VMS)).toBe(
      'VM          STATE     ZONE\nprod/db-1   Running   <none>\nprod/db-2   Stopped   <none>\n',
    );
  });

  it('refuses a column that is not HEADER:PATH', () => {
    expect(() => customColumnsTemplate('TARGET')).toThrow(/"TARGET" is not HEADER:PATH/);
    expect(() => customColumnsTemplate('A:.a,B:')).toThrow(UsageError);
  });
});

describe('which -o values are templates', () => {
  it('jsonpath= and custom-columns= are; the words are not', () => {
    expect(outputTemplate('jsonpath={.kind}')?.kind).toBe('jsonpath');
    expect(outputTemplate('custom-columns=A:.a')?.kind).toBe('custom-columns');
    expect(outputTemplate('json')).toBeUndefined();
  });
});
