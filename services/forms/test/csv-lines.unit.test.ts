import { describe, expect, it } from 'vitest';
import { csvCell, csvRows, MAX_CSV_FIELD_COLUMNS, paddedCsvLine, storedCsvLine } from '../src/store/csv-lines.ts';

describe('CSV cells of the export', () => {
  it('leaves plain text alone and quotes what RFC 4180 requires', () => {
    expect(csvCell('Ada King')).toBe('Ada King');
    expect(csvCell('')).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('x\r\ny')).toBe('"x\r\ny"');
  });

  it('neutralizes every cell a spreadsheet would read as a formula', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('a=1')).toBe('a=1');
  });
});

describe('CSV rows of the export', () => {
  const spam = { isSpam: false, reasons: [] };
  it('puts each field in its column, joins a repeated field with a line break, and starts every row empty', () => {
    const row = csvRows(['name', 'tag', 'note']);
    const fields = [
      { name: 'tag', value: '' },
      { name: 'name', value: 'Ada' },
      { name: 'tag', value: 'b' },
      { name: 'unlisted', value: 'dropped' },
      { name: 'tag', value: '=c' },
    ];
    expect(row({ id: 's1', createdAt: '2026-01-01T00:00:00.000Z', spam, fields })).toBe(
      's1,2026-01-01T00:00:00.000Z,false,Ada,"\nb\n=c",\r\n',
    );
    // Nothing of the previous row is left in the cells.
    expect(
      row({ id: 's2', createdAt: '2026-01-02T00:00:00.000Z', spam: { isSpam: true, reasons: [] }, fields: [] }),
    ).toBe('s2,2026-01-02T00:00:00.000Z,true,,,\r\n');
  });
});

describe('kept CSV lines', () => {
  const spam = { isSpam: false, reasons: [] };
  const positions = (names: string[]) => new Map(names.map((n, i) => [n, i]));

  it('pad to the line csvRows writes, for the columns of the line and for every later column added', () => {
    const s = {
      id: 's1',
      createdAt: '2026-01-01T00:00:00.000Z',
      spam,
      fields: [
        { name: 'b', value: '' },
        { name: 'c', value: '@x' },
        { name: 'a', value: 'A' },
        { name: 'c', value: 'y,z' },
      ],
    };
    const kept = storedCsvLine(s, positions(['a', 'b', 'c']));
    expect(kept).toEqual({ line: `s1,2026-01-01T00:00:00.000Z,false,A,,"'@x\ny,z"`, width: 3 });
    for (const columns of [
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'd', 'e'],
    ]) {
      expect(paddedCsvLine(kept.line, kept.width, columns.length)).toBe(csvRows(columns)(s));
    }
    // Trailing empty cells are not kept: the width ends at the last cell with a value.
    const short = storedCsvLine(
      {
        ...s,
        fields: [
          { name: 'a', value: '1' },
          { name: 'c', value: '' },
        ],
      },
      positions(['a', 'b', 'c']),
    );
    expect(short).toEqual({ line: 's1,2026-01-01T00:00:00.000Z,false,1', width: 1 });
    expect(paddedCsvLine(short.line, short.width, 3)).toBe('s1,2026-01-01T00:00:00.000Z,false,1,,\r\n');
  });

  it(`keep no cell past the first ${MAX_CSV_FIELD_COLUMNS} columns, as the export has none`, () => {
    const names = Array.from({ length: MAX_CSV_FIELD_COLUMNS + 2 }, (_, i) => `f${i}`);
    const s = {
      id: 's1',
      createdAt: '2026-01-01T00:00:00.000Z',
      spam,
      fields: [
        { name: 'f0', value: 'first' },
        { name: `f${MAX_CSV_FIELD_COLUMNS + 1}`, value: 'beyond' },
      ],
    };
    const kept = storedCsvLine(s, positions(names));
    expect(kept.width).toBe(1);
    const columns = names.slice(0, MAX_CSV_FIELD_COLUMNS);
    expect(paddedCsvLine(kept.line, kept.width, columns.length)).toBe(csvRows(columns)(s));
  });
});
