/** The operator's credential: per tab, gone when the tab closes (sessionStorage, never localStorage). */
const KEY = 'switchboard.console.credential'

export const credential = {
  get: (): string | undefined => sessionStorage.getItem(KEY) ?? undefined,
  set: (value: string): void => sessionStorage.setItem(KEY, value),
  clear: (): void => sessionStorage.removeItem(KEY),
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export interface RequestOptions {
  method?: string
  body?: unknown
  headers?: Record<string, string>
  signal?: AbortSignal
}

/** A request with the operator's credential, as any client of the APIs sends it. */
export const send = async (path: string, options: RequestOptions = {}): Promise<Response> => {
  const headers: Record<string, string> = { ...options.headers }
  const token = credential.get()
  if (token) headers.authorization = `Bearer ${token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    ...(options.signal && { signal: options.signal }),
  })
  if (!response.ok) throw new ApiError(response.status, await errorMessage(response))
  return response
}

/** Clawpedia, A2A (google.rpc.Status) and admin errors all carry `error.message`. */
const errorMessage = async (response: Response): Promise<string> => {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { error?: { message?: string } }
    if (body.error?.message) return body.error.message
  } catch {
    // not JSON: the text itself
  }
  return text || `${response.status} ${response.statusText}`
}

export const getJson = async <T>(path: string, options: RequestOptions = {}): Promise<T> =>
  (await send(path, options)).json() as Promise<T>

/** A2A HTTP+JSON of one agent (ListTasks, GetTask), speaking 1.0. */
export const a2aJson = <T>(slug: string, path: string): Promise<T> =>
  getJson<T>(`/agents/${encodeURIComponent(slug)}/a2a/rest${path}`, { headers: { 'a2a-version': '1.0' } })

export const clawpedia = (slug: string, path: string): string => `/agents/${encodeURIComponent(slug)}${path}`

export const describe = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.status}: ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error)
