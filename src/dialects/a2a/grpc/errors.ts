import { Metadata, type StatusObject, status } from '@grpc/grpc-js'
import { A2A_ERROR_DOMAIN, A2A_ERRORS, type A2aFailure, toA2aFailure } from '../errors.ts'
import { GRPC_METADATA } from '../wire/grpc-service.ts'
import { encodeStatusDetails } from '../wire/grpc-status.ts'

/** A gRPC error as grpc-js sends it: the code, the message, and the trailers with the details. */
export type GrpcError = Pick<StatusObject, 'code' | 'details' | 'metadata'>

/**
 * An A2A failure on gRPC (digest §4.4): the code of the v1.0.1 table (ours: UNAUTHENTICATED,
 * PERMISSION_DENIED, RESOURCE_EXHAUSTED), and the same ErrorInfo — reason, domain, metadata — and
 * BadRequest field violations the HTTP bindings send, as a google.rpc.Status in
 * `grpc-status-details-bin`.
 */
export const grpcErrorOf = (failure: A2aFailure): GrpcError => {
  const code = status[A2A_ERRORS[failure.kind].status]
  const metadata = new Metadata()
  metadata.set(
    GRPC_METADATA.statusDetails,
    encodeStatusDetails(code, failure.message, {
      reason: A2A_ERRORS[failure.kind].reason,
      domain: A2A_ERROR_DOMAIN,
      metadata: failure.metadata,
      ...(failure.violations && { violations: failure.violations }),
    }),
  )
  return { code, details: failure.message, metadata }
}

/** Anything thrown while serving a call, as its gRPC error; an unexpected one is logged, never shown. */
export const toGrpcError = (
  error: unknown,
  logger: { error(object: object, message: string): void },
): GrpcError => {
  const failure = toA2aFailure(error)
  if (failure.internal) logger.error({ err: failure.internal }, 'A2A gRPC call failed')
  return grpcErrorOf(failure)
}
