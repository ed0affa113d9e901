import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Role-sized ports (ADR 73–75): a port that grows past 15 members is two roles in one, and every adapter and
 * contract suite of it grows with it. A port here is an interface of a service whose members are mostly operations
 * (methods or function-typed properties); a record's fields are data and are not counted.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const MAX_MEMBERS = 15;

interface Port {
  where: string;
  name: string;
  members: number;
}

const isOperation = (m: ts.TypeElement) =>
  ts.isMethodSignature(m) || (ts.isPropertySignature(m) && m.type !== undefined && ts.isFunctionTypeNode(m.type));
const isPort = (node: ts.InterfaceDeclaration) =>
  node.members.length > 0 && node.members.filter(isOperation).length * 2 >= node.members.length;

function portsOf(file: string): Port[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const ports: Port[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && isPort(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      ports.push({ where: `${relative(ROOT, file)}:${line}`, name: node.name.text, members: node.members.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return ports;
}

describe('service ports', () => {
  it(`have at most ${MAX_MEMBERS} members each`, () => {
    const files = readdirSync(join(ROOT, 'services'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) =>
        readdirSync(join(ROOT, 'services', d.name, 'src'), { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.ts'))
          .map((f) => join(ROOT, 'services', d.name, 'src', f)),
      );
    const ports = files.flatMap(portsOf);
    expect(ports.length).toBeGreaterThan(10);
    const tooLarge = ports.filter((p) => p.members > MAX_MEMBERS).map((p) => `${p.where} ${p.name}: ${p.members}`);
    expect(tooLarge).toEqual([]);
  });
});
