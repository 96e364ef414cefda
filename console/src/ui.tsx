import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { BASE, navigate } from './router.ts'

/** A real link (it opens in a new tab too) that navigates in place on a plain click. */
export const Link = (props: { to: string; children: ComponentChildren; class?: string }) => (
  <a
    href={`${BASE}${props.to}`}
    class={props.class}
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(props.to)
    }}
  >
    {props.children}
  </a>
)

export const Json = (props: { value: unknown; label?: string }) => (
  <pre class="json" data-label={props.label}>
    {JSON.stringify(props.value, null, 2)}
  </pre>
)

export const Raw = (props: { value: unknown; summary: string }) => (
  <details>
    <summary>{props.summary}</summary>
    <Json value={props.value} />
  </details>
)

export const Notice = (props: { kind?: 'error' | 'info'; children: ComponentChildren }) => (
  <p class={`notice ${props.kind ?? 'info'}`} role={props.kind === 'error' ? 'alert' : 'status'}>
    {props.children}
  </p>
)

export const StateBadge = (props: { state: string }) => {
  const state = props.state.replace(/^TASK_STATE_/, '')
  return <span class={`state state-${state.toLowerCase()}`}>{state}</span>
}

/**
 * Calls `load` now and again `everyMs` after each answer (never two at once), until the component
 * goes or `deps` change. What it resolves with is the state; a failure keeps the last value.
 */
export const usePoll = <T,>(load: () => Promise<T>, everyMs: number, deps: unknown[]) => {
  const [value, setValue] = useState<T | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [tick, setTick] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const run = async () => {
      try {
        const next = await loadRef.current()
        if (stopped) return
        setValue(next)
        setError(undefined)
      } catch (failure) {
        if (!stopped) setError(failure)
      }
      if (!stopped) timer = setTimeout(run, everyMs)
    }
    void run()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [...deps, tick])
  return { value, error, refresh: () => setTick((n) => n + 1) }
}

export const time = (iso: string | undefined): string => (iso ? new Date(iso).toLocaleString() : '—')
