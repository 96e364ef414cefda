import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'
import { sourceFiles } from './layers.ts'

const SRC = join(import.meta.dirname, '../../src')

/**
 * Where `text` defines a getter or a setter in an object literal. V8 keeps such an accessor, and
 * everything its closure reaches, through the young collections until a full one: on a request's
 * path that kept every request's objects (bench/HISTORY.md, _What kept every request's objects_). A
 * class's accessors live on its prototype and are made once.
 */
const literalAccessors = (file: string, text: string): string[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) &&
      ts.isObjectLiteralExpression(node.parent)
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source))
      found.push(`${file}:${line + 1} ${node.getText(source).split('\n')[0]}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('what outlives the young collections', () => {
  it('no object literal under src/ defines a getter or a setter', () => {
    const found = sourceFiles(SRC).flatMap((file) =>
      literalAccessors(file, readFileSync(join(SRC, file), 'utf8')),
    )
    assert.deepEqual(found, [], 'use a class (its accessors are on the prototype) or a method')
  })

  it('the check finds a literal accessor, and leaves classes alone', () => {
    const text = [
      'const call = { request, get signal() { return made() } }',
      'const bag = { set value(v) { stored = v } }',
      'class Call { get signal() { return made() } }',
      'const plain = { signal: made() }',
    ].join('\n')
    assert.deepEqual(literalAccessors('x.ts', text), [
      'x.ts:1 get signal() { return made() }',
      'x.ts:2 set value(v) { stored = v }',
    ])
  })
})
