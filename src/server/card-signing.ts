import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose'
import {
  CARD_SIGNING_ALGORITHMS,
  type CardSigningAlgorithm,
  signCard,
} from '../dialects/a2a/wire/signature.ts'
import { PUBLIC_ROUTE } from '../web/caller.ts'
import { sendCard } from '../web/card-cache.ts'
import type { ServerContext } from '../web/context.ts'

/** Where the public halves of the card signing keys are published, at the server's root. */
export const JWKS_PATH = '/.well-known/jwks.json'

export interface CardSigningKeyOptions {
  /** A private key: PKCS#8 or SEC1/PKCS#1 PEM, or a private JWK. */
  privateKey: string | JWK
  /** Default: the key's RFC 7638 JWK thumbprint. */
  kid?: string
  /** Default: from the key (ES256/ES384/ES512 by curve, EdDSA for Ed25519, RS256 for RSA, PS256 for RSA-PSS). */
  alg?: CardSigningAlgorithm
}

export interface CardSigningOptions {
  /**
   * The first key signs the A2A cards; every key's public half is published at
   * /.well-known/jwks.json. To rotate: add the new key second, wait until clients have the key set,
   * move it first, later drop the old one.
   */
  keys: CardSigningKeyOptions[]
}

/** The loaded keys: what signs, and the key set that verifies. */
export interface CardSigning {
  signCard: NonNullable<ServerContext['signCard']>
  jwks: { keys: JWK[] }
}

const CURVE_ALGORITHMS: Readonly<Record<string, CardSigningAlgorithm>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
}

/** The algorithm a key signs with when none is configured. */
const defaultAlgorithm = (key: KeyObject): CardSigningAlgorithm | undefined => {
  switch (key.asymmetricKeyType) {
    case 'ec':
      return CURVE_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? '']
    case 'ed25519':
      return 'EdDSA'
    case 'rsa':
      return 'RS256'
    case 'rsa-pss':
      return 'PS256'
    default:
      return undefined
  }
}

const privateKeyOf = (value: string | JWK, which: string): KeyObject => {
  try {
    const key =
      typeof value === 'string'
        ? createPrivateKey(value)
        : createPrivateKey({ key: value as JsonWebKey, format: 'jwk' })
    if (key.type !== 'private') throw new Error('not a private key')
    return key
  } catch (error) {
    throw new TypeError(`card signing ${which}: not a private key (PEM or JWK): ${(error as Error).message}`)
  }
}

/**
 * Loads the card signing keys and checks each by signing with it, so a key that does not fit its
 * algorithm stops the start instead of the first card request.
 */
export const loadCardSigning = async (
  options: CardSigningOptions,
  jwksUrl: () => string,
): Promise<CardSigning> => {
  if (options.keys.length === 0) throw new TypeError('card signing needs at least one key')
  const loaded: { key: KeyObject; kid: string; alg: CardSigningAlgorithm; jwk: JWK }[] = []
  for (const [index, configured] of options.keys.entries()) {
    const which = `key ${configured.kid ?? index + 1}`
    const key = privateKeyOf(configured.privateKey, which)
    const alg = configured.alg ?? defaultAlgorithm(key)
    if (!alg || !(CARD_SIGNING_ALGORITHMS as readonly string[]).includes(alg)) {
      throw new TypeError(
        `card signing ${which}: algorithm ${alg ?? `unknown for a ${key.asymmetricKeyType} key`}; use one of ${CARD_SIGNING_ALGORITHMS.join(', ')}`,
      )
    }
    const publicJwk = await exportJWK(createPublicKey(key))
    const kid = configured.kid ?? (await calculateJwkThumbprint(publicJwk))
    if (kid === '' || loaded.some((other) => other.kid === kid))
      throw new TypeError(`card signing ${which}: kid "${kid}" is empty or used twice`)
    try {
      await signCard({}, { key, kid, alg, jku: 'https://localhost/probe' })
    } catch (error) {
      throw new TypeError(`card signing ${which}: cannot sign with ${alg}: ${(error as Error).message}`)
    }
    loaded.push({ key, kid, alg, jwk: { ...publicJwk, kid, alg, use: 'sig' } })
  }
  const signer = loaded[0]!
  return {
    jwks: { keys: loaded.map((entry) => entry.jwk) },
    signCard: async (card) => [
      await signCard(card, { key: signer.key, kid: signer.kid, alg: signer.alg, jku: jwksUrl() }),
    ],
  }
}

/** The key set, public like the cards, and cached like them. */
export const jwksRoutes = async (
  app: FastifyInstance,
  options: { jwks: { keys: JWK[] }; server: ServerContext },
) => {
  app.get(JWKS_PATH, PUBLIC_ROUTE, (request, reply) =>
    sendCard(request, reply, options.jwks, options.server.startedAt),
  )
}
