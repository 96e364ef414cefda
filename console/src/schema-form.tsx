import { useState } from 'preact/hooks'

export interface JsonSchema {
  type?: string | string[]
  title?: string
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  items?: JsonSchema
  default?: unknown
}

type Value = Record<string, unknown>

const SCALARS = ['string', 'number', 'integer', 'boolean']

/** Whether a form can express the schema; anything else is edited as JSON. */
const formable = (schema: JsonSchema): boolean => {
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => ['string', 'number'].includes(typeof v))
  if (schema.type === 'object')
    return schema.properties !== undefined && Object.values(schema.properties).every(formable)
  if (schema.type === 'array')
    return schema.items !== undefined && SCALARS.includes(String(schema.items.type)) && !schema.items.enum
  return typeof schema.type === 'string' && SCALARS.includes(schema.type)
}

const initial = (schema: JsonSchema): unknown => {
  if (schema.default !== undefined) return schema.default
  if (schema.type === 'object')
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, initial(s)]))
  return undefined
}

/** The value to send: empty optional fields left out, so the agent's defaults apply. */
const prune = (value: unknown): unknown => {
  if (value === undefined || value === '') return undefined
  if (Array.isArray(value)) return value
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, prune(v)] as const)
        .filter(([, v]) => v !== undefined),
    )
  return value
}

const scalarOf = (schema: JsonSchema | undefined, text: string): unknown => {
  if (schema?.type === 'integer' || schema?.type === 'number') {
    const number = Number(text)
    // Left as typed when it is no number: the server's validation names the field.
    return text.trim() === '' ? undefined : Number.isFinite(number) ? number : text
  }
  if (schema?.type === 'boolean') return text === 'true'
  return text
}

let ids = 0

/**
 * A form generated from an input schema (strings, numbers, integers, booleans, enums, nested
 * objects, arrays of scalars); any other schema, or the operator's choice, is a JSON text area.
 */
export const SchemaForm = (props: {
  schema: JsonSchema
  submitLabel: string
  onSubmit: (value: Value) => Promise<void>
}) => {
  const usable = formable(props.schema) && props.schema.type === 'object'
  const [asJson, setAsJson] = useState(!usable)
  const [value, setValue] = useState<Value>(() => (initial(props.schema) as Value | undefined) ?? {})
  const [text, setText] = useState(() => JSON.stringify(prune(value) ?? {}, null, 2))
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [formId] = useState(() => `form${++ids}`)

  const submit = async (event: Event) => {
    event.preventDefault()
    setError(undefined)
    let body: Value
    try {
      body = asJson ? (JSON.parse(text) as Value) : ((prune(value) as Value | undefined) ?? {})
    } catch (failure) {
      setError(`not JSON: ${(failure as Error).message}`)
      return
    }
    setBusy(true)
    try {
      await props.onSubmit(body)
    } catch (failure) {
      setError((failure as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form class="schema-form" onSubmit={submit}>
      {asJson ? (
        <label>
          Input (JSON)
          <textarea
            rows={8}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            spellcheck={false}
          />
        </label>
      ) : (
        <Fields schema={props.schema} value={value} onChange={(v) => setValue(v as Value)} path={formId} />
      )}
      {error && (
        <p class="notice error" role="alert">
          {error}
        </p>
      )}
      <div class="row">
        <button type="submit" disabled={busy}>
          {props.submitLabel}
        </button>
        {usable && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              if (!asJson) setText(JSON.stringify(prune(value) ?? {}, null, 2))
              setAsJson(!asJson)
            }}
          >
            {asJson ? 'Edit as form' : 'Edit as JSON'}
          </button>
        )}
      </div>
    </form>
  )
}

const Fields = (props: {
  schema: JsonSchema
  value: unknown
  onChange: (v: unknown) => void
  path: string
}) => {
  const object = (props.value ?? {}) as Value
  return (
    <>
      {Object.entries(props.schema.properties ?? {}).map(([name, schema]) => (
        <Field
          key={name}
          name={name}
          schema={schema}
          required={props.schema.required?.includes(name) ?? false}
          value={object[name]}
          path={`${props.path}-${name}`}
          onChange={(v) => props.onChange({ ...object, [name]: v })}
        />
      ))}
    </>
  )
}

const Field = (props: {
  name: string
  schema: JsonSchema
  required: boolean
  value: unknown
  path: string
  onChange: (v: unknown) => void
}) => {
  const { schema, name, path } = props
  const label = `${schema.title ?? name}${props.required ? ' (required)' : ''}`
  const hint = schema.description && <small id={`${path}-hint`}>{schema.description}</small>
  const described = schema.description ? `${path}-hint` : undefined
  if (schema.type === 'object')
    return (
      <fieldset>
        <legend>{label}</legend>
        {hint}
        <Fields schema={schema} value={props.value} onChange={props.onChange} path={path} />
      </fieldset>
    )
  if (Array.isArray(schema.enum))
    return (
      <label for={path}>
        {label}
        <select
          id={path}
          aria-describedby={described}
          value={props.value === undefined ? '' : String(props.value)}
          onChange={(e) => {
            const chosen = schema.enum!.find((v) => String(v) === e.currentTarget.value)
            props.onChange(chosen)
          }}
        >
          <option value="">—</option>
          {schema.enum.map((v) => (
            <option value={String(v)}>{String(v)}</option>
          ))}
        </select>
        {hint}
      </label>
    )
  if (schema.type === 'boolean')
    return (
      <label class="check" for={path}>
        <input
          id={path}
          type="checkbox"
          aria-describedby={described}
          checked={props.value === true}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />
        {label}
        {hint}
      </label>
    )
  if (schema.type === 'array')
    return (
      <label for={path}>
        {label} (one per line)
        <textarea
          id={path}
          rows={3}
          aria-describedby={described}
          value={Array.isArray(props.value) ? props.value.join('\n') : ''}
          onInput={(e) => {
            const lines = e.currentTarget.value.split('\n')
            props.onChange(lines.filter((l) => l !== '').map((l) => scalarOf(schema.items, l)))
          }}
        />
        {hint}
      </label>
    )
  const numeric = schema.type === 'number' || schema.type === 'integer'
  const long = schema.type === 'string' && typeof props.value === 'string' && props.value.includes('\n')
  return (
    <label for={path}>
      {label}
      {long || (schema.type === 'string' && !numeric && /csv|text|body|markdown/i.test(name)) ? (
        <textarea
          id={path}
          rows={4}
          aria-describedby={described}
          required={props.required}
          value={props.value === undefined ? '' : String(props.value)}
          onInput={(e) => props.onChange(e.currentTarget.value)}
        />
      ) : (
        <input
          id={path}
          type={numeric ? 'number' : 'text'}
          step={schema.type === 'integer' ? 1 : 'any'}
          aria-describedby={described}
          required={props.required}
          value={props.value === undefined ? '' : String(props.value)}
          onInput={(e) => props.onChange(scalarOf(schema, e.currentTarget.value))}
        />
      )}
      {hint}
    </label>
  )
}
