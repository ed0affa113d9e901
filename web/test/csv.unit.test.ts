import { describe, expect, it } from 'vitest';
import { csvCell, csvOf } from '../src/lib/csv.ts';

describe('CSV written in the browser', () => {
  it('leaves plain text alone and quotes what RFC 4180 requires', () => {
    expect(csvCell('Ada King')).toBe('Ada King');
    expect(csvCell('')).toBe('');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('x\r\ny')).toBe('"x\r\ny"');
  });

  it('neutralizes every cell a spreadsheet would read as a formula, as the server’s exports do', () => {
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\t=1')).toBe("'\t=1");
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('a=1')).toBe('a=1');
  });

  it('writes a header and its rows, each line ending with CRLF', () => {
    expect(
      csvOf(
        ['a', 'b'],
        [
          ['1', '=2'],
          ['x,y', ''],
        ],
      ),
    ).toBe(`a,b\r\n1,'=2\r\n"x,y",\r\n`);
  });
});
