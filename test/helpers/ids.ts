/** A version 7 UUID (RFC 9562), as `newId()` mints them: what the tests check minted ids against. */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
