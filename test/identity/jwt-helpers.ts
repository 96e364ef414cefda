import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  SignJWT,
} from 'jose'

export const ISSUER = 'https://idp.example'
export const AUDIENCE = 'switchboard-test'

export interface SigningKey {
  kid: string
  alg: string
  privateKey: CryptoKey
  publicJwk: JWK
}

export const signingKey = async (kid: string, alg = 'RS256'): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

const now = (): number => Math.floor(Date.now() / 1000)

/** A token from the test issuer for the test audience, valid for ten minutes unless `claims` say otherwise. */
export const tokenFor = (key: SigningKey, claims: JWTPayload = {}, header: Record<string, unknown> = {}) =>
  new SignJWT({ iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 600, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, ...header })
    .sign(key.privateKey)

export const secondsFromNow = (seconds: number): number => now() + seconds

/** A JWKS endpoint on 127.0.0.1 whose key set the test may change, counting the fetches it answers. */
export interface JwksServer {
  url: string
  fetches: number
  keys: JWK[]
  close(): Promise<void>
}

export const startJwksServer = async (keys: JWK[]): Promise<JwksServer> => {
  const state = { fetches: 0, keys }
  const server: Server = createServer((_request, response) => {
    state.fetches++
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ keys: state.keys } satisfies JSONWebKeySet))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/jwks.json`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  })
}

export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` })
