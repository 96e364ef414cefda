/**
 * Structural checks of what we emit against the published A2A v1.0.1 JSON Schema
 * (test/fixtures/spec/a2a-v1.0.1.json, draft 2020-12). The file is defective as published (see SOURCE.md): every
 * `$ref` names a missing external file, so each is rewritten to the local definition whose key,
 * spaces removed, is the message name. It has no `required` lists and does not enforce oneofs,
 * so `checkA2a` adds the proto's REQUIRED fields and oneof rules on top.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { validateV03 } from './a2a-v03-schema.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

const here = dirname(fileURLToPath(import.meta.url))
const SCHEMA_PATH = process.env.A2A_SCHEMA ?? join(here, '../fixtures/spec/a2a-v1.0.1.json')

type Json = Record<string, unknown>

const load = (): { ajv: Ajv2020; keys: Map<string, string> } => {
  const bundle = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as { definitions: Record<string, Json> }
  const keys = new Map(Object.keys(bundle.definitions).map((key) => [key.replace(/ /g, ''), key]))
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite)
    if (typeof node !== 'object' || node === null) return node
    const out: Json = {}
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === '$schema') continue
      if (key === '$ref' && typeof value === 'string') {
        const name = /^(?:lf\.a2a\.v1|google\.protobuf)\.(\w+)\.jsonschema\.json$/.exec(value)?.[1]
        const target = name && keys.get(name)
        if (!target) throw new Error(`unresolvable $ref ${value}`)
        // A JSON pointer in a URI fragment: the key's spaces percent-encoded.
        out.$ref = `#/definitions/${encodeURIComponent(target)}`
        continue
      }
      out[key] = rewrite(value)
    }
    return out
  }
  const root = { $id: 'a2a.json', definitions: rewrite(bundle.definitions) }
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
  ajv.addSchema(root)
  return { ajv, keys }
}

const { ajv, keys } = load()

/** Validates `value` as the named message (`Task`, `AgentCard`, `StreamResponse` …); returns the errors. */
export const validate = (typeName: string, value: unknown): string[] => {
  const key = keys.get(typeName)
  if (!key) throw new Error(`no definition for ${typeName} in the A2A schema`)
  const check = ajv.getSchema(`a2a.json#/definitions/${encodeURIComponent(key)}`)
  if (!check) throw new Error(`could not compile ${typeName}`)
  if (check(value)) return []
  return (check.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
  )
}

interface Shape {
  required?: string[]
  /** REQUIRED repeated fields: at least one element. */
  nonEmpty?: string[]
  /** A proto oneof that must have exactly one member. */
  oneOf?: string[]
  /** Fields holding other messages (`[T]` for repeated ones). */
  children?: Record<string, string | [string]>
}

const SHAPES: Record<string, Shape> = {
  Task: {
    required: ['id', 'status'],
    children: { status: 'TaskStatus', artifacts: ['Artifact'], history: ['Message'] },
  },
  TaskStatus: { required: ['state'], children: { message: 'Message' } },
  Message: { required: ['messageId', 'role', 'parts'], nonEmpty: ['parts'], children: { parts: ['Part'] } },
  Part: { oneOf: ['text', 'raw', 'url', 'data'] },
  Artifact: { required: ['artifactId', 'parts'], nonEmpty: ['parts'], children: { parts: ['Part'] } },
  TaskStatusUpdateEvent: { required: ['taskId', 'contextId', 'status'], children: { status: 'TaskStatus' } },
  TaskArtifactUpdateEvent: {
    required: ['taskId', 'contextId', 'artifact'],
    children: { artifact: 'Artifact' },
  },
  StreamResponse: {
    oneOf: ['task', 'message', 'statusUpdate', 'artifactUpdate'],
    children: {
      task: 'Task',
      message: 'Message',
      statusUpdate: 'TaskStatusUpdateEvent',
      artifactUpdate: 'TaskArtifactUpdateEvent',
    },
  },
  SendMessageResponse: { oneOf: ['task', 'message'], children: { task: 'Task', message: 'Message' } },
  ListTasksResponse: {
    required: ['tasks', 'nextPageToken', 'pageSize', 'totalSize'],
    children: { tasks: ['Task'] },
  },
  TaskPushNotificationConfig: { required: ['url'], children: { authentication: 'AuthenticationInfo' } },
  AuthenticationInfo: { required: ['scheme'] },
  ListTaskPushNotificationConfigsResponse: {
    required: ['configs', 'nextPageToken'],
    children: { configs: ['TaskPushNotificationConfig'] },
  },
  AgentCard: {
    required: [
      'name',
      'description',
      'supportedInterfaces',
      'version',
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ],
    nonEmpty: ['supportedInterfaces', 'defaultInputModes', 'defaultOutputModes', 'skills'],
    children: { supportedInterfaces: ['AgentInterface'], skills: ['AgentSkill'], provider: 'AgentProvider' },
  },
  AgentInterface: { required: ['url', 'protocolBinding', 'protocolVersion'] },
  AgentSkill: { required: ['id', 'name', 'description', 'tags'], nonEmpty: ['tags'] },
  AgentProvider: { required: ['url', 'organization'] },
}

const requiredProblems = (typeName: string, value: unknown, path: string): string[] => {
  const shape = SHAPES[typeName]
  if (!shape || typeof value !== 'object' || value === null) return []
  const object = value as Json
  const problems: string[] = []
  for (const field of shape.required ?? []) {
    if (object[field] === undefined || object[field] === null) problems.push(`${path}/${field} is REQUIRED`)
  }
  for (const field of shape.nonEmpty ?? []) {
    if (Array.isArray(object[field]) && (object[field] as unknown[]).length === 0)
      problems.push(`${path}/${field} must have at least one element`)
  }
  if (shape.oneOf) {
    const members = shape.oneOf.filter((m) => object[m] !== undefined)
    if (members.length !== 1)
      problems.push(
        `${path} must have exactly one of ${shape.oneOf.join('|')}, has ${members.join(',') || 'none'}`,
      )
  }
  for (const [field, child] of Object.entries(shape.children ?? {})) {
    const nested = object[field]
    if (nested === undefined) continue
    if (Array.isArray(child)) {
      if (Array.isArray(nested)) {
        for (const [i, item] of nested.entries())
          problems.push(...requiredProblems(child[0], item, `${path}/${field}/${i}`))
      }
    } else {
      problems.push(...requiredProblems(child, nested, `${path}/${field}`))
    }
  }
  return problems
}

/** Asserts that `value` is a well-formed A2A `typeName`: the schema, plus REQUIRED fields and oneofs. */
export const checkA2a = (typeName: string, value: unknown): void => {
  const problems = [...validate(typeName, value), ...requiredProblems(typeName, value, '')]
  assert.deepEqual(problems, [], `${typeName} is malformed: ${JSON.stringify(value).slice(0, 600)}`)
}

/** What a card carries for A2A 0.3 clients (src/dialects/a2a/card-v03.ts), beside the 1.0 fields. */
const V03_CARD_KEYS = [
  'protocolVersion',
  'url',
  'preferredTransport',
  'additionalInterfaces',
  'supportsAuthenticatedExtendedCard',
  'security',
]
const V03_SCHEME_KEYS = [
  'type',
  'in',
  'name',
  'scheme',
  'bearerFormat',
  'flows',
  'oauth2MetadataUrl',
  'openIdConnectUrl',
  'description',
]

/**
 * Asserts that a card we serve is a well-formed 1.0 AgentCard once its 0.3 fields are set aside
 * (its 0.3 `supportedInterfaces` entries are 1.0 AgentInterfaces already) and, when it carries
 * them, a valid 0.3.0 AgentCard as a whole.
 */
export const checkCard = (card: unknown): void => {
  const whole = card as Json
  const only10: Json = Object.fromEntries(
    Object.entries(whole).filter(([key]) => !V03_CARD_KEYS.includes(key)),
  )
  if (only10.securitySchemes) {
    only10.securitySchemes = Object.fromEntries(
      Object.entries(only10.securitySchemes as Record<string, Json>).map(([name, scheme]) => [
        name,
        Object.fromEntries(Object.entries(scheme).filter(([key]) => !V03_SCHEME_KEYS.includes(key))),
      ]),
    )
  }
  checkA2a('AgentCard', only10)
  if (whole.protocolVersion !== undefined) {
    assert.deepEqual(
      validateV03('AgentCard', card),
      [],
      `not a valid 0.3 AgentCard: ${JSON.stringify(card).slice(0, 600)}`,
    )
  }
}
