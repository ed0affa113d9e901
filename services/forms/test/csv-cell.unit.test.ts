import { describe, expect, it } from 'vitest';
import { csvCell, csvRows } from '../src/routes/submission-export.ts';

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
