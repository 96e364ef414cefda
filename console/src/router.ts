import { useEffect, useState } from 'preact/hooks'

export const BASE = '/console'

/** The app's path below /console ('/tasks/…'), kept in step with the address bar. */
export const usePath = (): string => {
  const [path, setPath] = useState(current())
  useEffect(() => {
    const update = () => setPath(current())
    addEventListener('popstate', update)
    addEventListener('console:navigate', update)
    return () => {
      removeEventListener('popstate', update)
      removeEventListener('console:navigate', update)
    }
  }, [])
  return path
}

const current = (): string => location.pathname.slice(BASE.length) || '/'

export const navigate = (path: string): void => {
  history.pushState(null, '', `${BASE}${path}`)
  dispatchEvent(new Event('console:navigate'))
}
