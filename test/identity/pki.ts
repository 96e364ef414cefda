import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { JsonResponse } from '../helpers/server.ts'

/** A throwaway PKI made with openssl in a temporary directory: CAs, and certificates they issue. */
export interface Pki {
  dir: string
  /** Makes a CA; returns the path of its certificate. */
  ca(name: string): string
  /** Issues a certificate (EC P-256) from `ca`; returns the paths of its certificate and key. */
  issue(options: { ca: string; name: string; subject: string; extensions: string }): {
    cert: string
    key: string
  }
  read(path: string): string
  remove(): void
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']

export const createPki = (): Pki => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-pki-'))
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  return {
    dir,
    ca(name) {
      openssl(
        'req',
        '-x509',
        ...EC,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
        '-days',
        '1',
        '-subj',
        `/O=Switchboard tests/CN=${name}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      )
      return file(`${name}.pem`)
    },
    issue({ ca, name, subject, extensions }) {
      writeFileSync(file(`${name}.ext`), `${extensions}\n`)
      openssl('req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject)
      openssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        ca,
        '-CAkey',
        ca.replace(/\.pem$/, '.key'),
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
      )
      return { cert: file(`${name}.pem`), key: file(`${name}.key`) }
    },
    read: (path) => readFileSync(path, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** One HTTPS request trusting `ca`, optionally presenting a client certificate. */
export const httpsJson = (
  url: string,
  options: { ca: string; cert?: string; key?: string; method?: string; body?: unknown },
): Promise<JsonResponse> =>
  new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
    const req = httpsRequest(
      url,
      {
        method: options.method ?? (payload ? 'POST' : 'GET'),
        ca: options.ca,
        ...(options.cert && { cert: options.cert, key: options.key }),
        headers: payload ? { 'content-type': 'application/json' } : {},
        agent: false,
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => {
          text += chunk
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: new Headers(response.headers as Record<string, string>),
            body: text ? JSON.parse(text) : undefined,
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
