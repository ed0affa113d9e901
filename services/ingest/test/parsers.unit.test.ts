import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS as limits } from '../src/limits.ts';
import { jsonDepthExceeds, parseJson } from '../src/parse/parse-json.ts';
import { parseUrlencoded } from '../src/parse/parse-urlencoded.ts';
import { checkedField } from '../src/parse/parsed-body.ts';

const urlencoded = (text: string) => parseUrlencoded(Buffer.from(text), limits);
const json = (text: string) => parseJson(Buffer.from(text), limits);
const code = (c: string, status: number) => expect.objectContaining({ name: 'AppError', code: c, status });

function nested(depth: number, open: string, close: string, inner = '1') {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

describe('parseUrlencoded', () => {
  it('keeps every field in the order sent, duplicates included', () => {
    expect(urlencoded('b=2&a=1&b=3&c=').fields).toEqual([
      { name: 'b', value: '2' },
      { name: 'a', value: '1' },
      { name: 'b', value: '3' },
      { name: 'c', value: '' },
    ]);
  });

  it('decodes percent escapes and plus signs, and yields no files', () => {
    expect(urlencoded('msg=Hello+there%21&e=a%40b.c')).toEqual({
      fields: [
        { name: 'msg', value: 'Hello there!' },
        { name: 'e', value: 'a@b.c' },
      ],
      files: [],
    });
  });

  it('keeps brackets, dots and __proto__ as literal parts of the name, never structure', () => {
    const before = Object.getOwnPropertyNames(Object.prototype);
    const parsed = urlencoded(
      'a[__proto__][x]=1&__proto__[isAdmin]=1&constructor[prototype][y]=1&a[__proto__]=b&a[__proto__]&a[length]=100000000&b.c=3',
    );
    expect(parsed.fields).toEqual([
      { name: 'a[__proto__][x]', value: '1' },
      { name: '__proto__[isAdmin]', value: '1' },
      { name: 'constructor[prototype][y]', value: '1' },
      { name: 'a[__proto__]', value: 'b' },
      { name: 'a[__proto__]', value: '' },
      { name: 'a[length]', value: '100000000' },
      { name: 'b.c', value: '3' },
    ]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(before);
  });

  it('skips empty pairs from stray separators', () => {
    expect(urlencoded('&a=1&&b=2&').fields).toEqual([
      { name: 'a', value: '1' },
      { name: 'b', value: '2' },
    ]);
    expect(urlencoded('').fields).toEqual([]);
  });

  it('accepts exactly the field limit', () => {
    const text = Array.from({ length: limits.maxFields }, (_, i) => `f${i}=${i}`).join('&');
    expect(urlencoded(text).fields).toHaveLength(limits.maxFields);
  });

  it('rejects one field past the limit with TOO_MANY_FIELDS', () => {
    const text = Array.from({ length: limits.maxFields + 1 }, (_, i) => `f${i}=${i}`).join('&');
    expect(() => urlencoded(text)).toThrow(code('TOO_MANY_FIELDS', 413));
  });

  it('rejects 100,000 params with TOO_MANY_FIELDS quickly', () => {
    const body = Buffer.from('a=1&'.repeat(100_000));
    const started = performance.now();
    expect(() => parseUrlencoded(body, limits)).toThrow(code('TOO_MANY_FIELDS', 413));
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('decodes invalid UTF-8 (an encoded lone surrogate) to U+FFFD per byte, and refuses NUL', () => {
    expect(urlencoded('a=%ED%A0%80x&b=%FFy').fields).toEqual([
      { name: 'a', value: '\uFFFD\uFFFD\uFFFDx' },
      { name: 'b', value: '\uFFFDy' },
    ]);
    expect(() => urlencoded('a=x%00y')).toThrow(code('INVALID_CHARACTER', 400));
    expect(() => urlencoded('a%00b=1')).toThrow(code('INVALID_CHARACTER', 400));
  });
});

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays, up to and past the limit', () => {
    expect(jsonDepthExceeds(nested(8, '[', ']'), 8)).toBe(false);
    expect(jsonDepthExceeds(nested(9, '[', ']'), 8)).toBe(true);
    expect(jsonDepthExceeds(nested(8, '{"a":', '}'), 8)).toBe(false);
    expect(jsonDepthExceeds(nested(9, '{"a":', '}'), 8)).toBe(true);
    expect(jsonDepthExceeds('[[1],[2],{"a":[3]}]', 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[[[[[[[{{{{{{{{{{', b: '\\"[[[[[[[[[[', c: '"]]]][[[[[[[' });
    expect(jsonDepthExceeds(text, 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a":"\\\\",${'['.repeat(2)}`, 2)).toBe(true);
  });

  it('scans depth 10,000 without recursion', () => {
    expect(jsonDepthExceeds(nested(10_000, '[', ']'), 8)).toBe(true);
  });
});

describe('parseJson', () => {
  it('yields one field per top-level key, in order', () => {
    expect(json('{"b":"x","a":"y"}')).toEqual({
      fields: [
        { name: 'b', value: 'x' },
        { name: 'a', value: 'y' },
      ],
      files: [],
    });
  });

  it('turns numbers, booleans and null into text', () => {
    expect(json('{"n":42,"f":1.5,"z":-0,"t":true,"no":false,"nil":null}').fields).toEqual([
      { name: 'n', value: '42' },
      { name: 'f', value: '1.5' },
      { name: 'z', value: '0' },
      { name: 't', value: 'true' },
      { name: 'no', value: 'false' },
      { name: 'nil', value: '' },
    ]);
  });

  it('keeps nested values as compact JSON text', () => {
    expect(json('{ "tags" : [ "a" , "b" ], "addr": { "city": "Oslo", "zip": [ 1 ] } }').fields).toEqual([
      { name: 'tags', value: '["a","b"]' },
      { name: 'addr', value: '{"city":"Oslo","zip":[1]}' },
    ]);
  });

  it('keeps the last of duplicate keys, deterministically', () => {
    expect(json('{"a":"1","b":"x","a":"2"}').fields).toEqual([
      { name: 'a', value: '2' },
      { name: 'b', value: 'x' },
    ]);
  });

  it('stores __proto__ as a literal field name and pollutes nothing', () => {
    const parsed = json('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"y":1}}}');
    expect(parsed.fields).toEqual([
      { name: '__proto__', value: '{"isAdmin":true}' },
      { name: 'constructor', value: '{"prototype":{"y":1}}' },
    ]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).y).toBeUndefined();
  });

  it('accepts nesting up to the depth limit', () => {
    const text = `{"a":${nested(limits.maxJsonDepth - 1, '[', ']')}}`;
    expect(json(text).fields).toHaveLength(1);
  });

  it('rejects nesting past the limit with JSON_TOO_DEEP', () => {
    expect(() => json(`{"a":${nested(limits.maxJsonDepth, '[', ']')}}`)).toThrow(code('JSON_TOO_DEEP', 400));
  });

  it('rejects depth 10,000 objects and arrays with JSON_TOO_DEEP, without a stack overflow', () => {
    expect(() => json(nested(10_000, '{"a":', '}'))).toThrow(code('JSON_TOO_DEEP', 400));
    expect(() => json(nested(10_000, '[', ']'))).toThrow(code('JSON_TOO_DEEP', 400));
  });

  it.each([
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['a boolean', 'true'],
    ['an array', '[{"a":1}]'],
    ['empty text', ''],
    ['broken JSON', '{"a":'],
    ['trailing garbage', '{"a":1} x'],
  ])('rejects %s with MALFORMED', (_label, text) => {
    expect(() => json(text)).toThrow(code('MALFORMED', 400));
  });

  it('rejects a number out of range (1e400) with MALFORMED rather than storing Infinity', () => {
    expect(() => json('{"big":1e400}')).toThrow(code('MALFORMED', 400));
    expect(() => json('{"small":-1e400}')).toThrow(code('MALFORMED', 400));
    expect(() => json('{"nested":[1,1e400]}')).toThrow(code('MALFORMED', 400));
    expect(() => json('{"deep":{"n":-1e999}}')).toThrow(code('MALFORMED', 400));
  });

  it('accepts exactly the field limit and rejects one more with TOO_MANY_FIELDS', () => {
    const obj = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(json(obj(limits.maxFields)).fields).toHaveLength(limits.maxFields);
    expect(() => json(obj(limits.maxFields + 1))).toThrow(code('TOO_MANY_FIELDS', 413));
    expect(() => json(obj(10_000))).toThrow(code('TOO_MANY_FIELDS', 413));
  });

  it('turns lone surrogates into U+FFFD and refuses NUL', () => {
    expect(json('{"\\ud800k":"v\\udc00"}').fields).toEqual([{ name: '\uFFFDk', value: 'v\uFFFD' }]);
    expect(() => json('{"a":"x\\u0000"}')).toThrow(code('INVALID_CHARACTER', 400));
  });
});

describe('checkedField', () => {
  it('refuses NUL in a name or a value with INVALID_CHARACTER naming the field', () => {
    expect(() => checkedField('a', 'x\u0000', limits)).toThrow(code('INVALID_CHARACTER', 400));
    expect(() => checkedField('a', 'x\u0000', limits)).toThrow(expect.objectContaining({ field: 'a' }));
    expect(() => checkedField('\u0000', 'x', limits)).toThrow(code('INVALID_CHARACTER', 400));
  });

  it('replaces lone surrogates with U+FFFD and keeps valid pairs', () => {
    expect(checkedField('n\uD800', '\uDC00v😀', limits)).toEqual({ name: 'n\uFFFD', value: '\uFFFDv😀' });
  });

  it('keeps RTL overrides and zero-width characters verbatim', () => {
    expect(checkedField('n', 'a\u202Eb\u200Bc', limits)).toEqual({ name: 'n', value: 'a\u202Eb\u200Bc' });
  });

  it('accepts a name at the length limit and rejects one longer', () => {
    expect(checkedField('n'.repeat(limits.maxFieldNameLength), '', limits).name).toHaveLength(
      limits.maxFieldNameLength,
    );
    expect(() => checkedField('n'.repeat(limits.maxFieldNameLength + 1), '', limits)).toThrow(
      code('FIELD_NAME_TOO_LONG', 400),
    );
  });

  it('measures values in UTF-8 bytes: accepts the limit, rejects one byte more', () => {
    const half = limits.maxFieldValueBytes / 2;
    expect(checkedField('v', 'é'.repeat(half), limits).value).toHaveLength(half);
    expect(() => checkedField('v', `${'é'.repeat(half)}x`, limits)).toThrow(code('FIELD_VALUE_TOO_LONG', 413));
    expect(() => checkedField('v', 'x'.repeat(1024 * 1024), limits)).toThrow(
      expect.objectContaining({ code: 'FIELD_VALUE_TOO_LONG', field: 'v' }),
    );
  });
});
