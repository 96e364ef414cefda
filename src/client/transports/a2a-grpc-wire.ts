import { type DescMessage, fromBinary, fromJson, type JsonValue, toBinary, toJson } from '@bufbuild/protobuf'
import { status as GrpcStatus, type Metadata, type ServiceError } from '@grpc/grpc-js'
import {
  BadRequestSchema,
  ErrorInfoSchema,
} from '../../dialects/a2a/wire/grpc/google/rpc/error_details_pb.ts'
import { GRPC_METADATA } from '../../dialects/a2a/wire/grpc-service.ts'
import { decodeStatusDetails } from '../../dialects/a2a/wire/grpc-status.ts'
import { ClientError, type ClientErrorCode, fromA2aStatus } from '../errors.ts'

/**
 * ProtoJSON ⇄ protobuf binary for the gRPC transport: requests are built as the same ProtoJSON
 * the HTTP bindings send (a2a-codec.ts), answers read back as ProtoJSON, so a task decodes the
 * same whichever binding carried it. A gRPC failure becomes the client's error from its
 * google.rpc.Status (ErrorInfo, BadRequest), as the HTTP bindings' error bodies do.
 */

/** A request in ProtoJSON as the bytes of `schema`; a shape the proto cannot hold is the caller's error. */
export const encodeRequest = (schema: DescMessage, json: unknown, what: string): Buffer => {
  try {
    return Buffer.from(toBinary(schema, fromJson(schema, json as JsonValue)))
  } catch (error) {
    throw new ClientError(
      'INVALID_REQUEST',
      `${what}: the request does not fit ${schema.typeName}: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  }
}

/** An answer's bytes as ProtoJSON (enum names, camelCase, defaults omitted: what the codec reads). */
export const decodeAnswer = (schema: DescMessage, bytes: Buffer, what: string): JsonValue => {
  try {
    return toJson(schema, fromBinary(schema, bytes))
  } catch (error) {
    throw new ClientError(
      'PROTOCOL_ERROR',
      `${what}: the answer is not a valid ${schema.typeName}: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  }
}

/**
 * The google.rpc.Status of the `grpc-status-details-bin` trailer, its ErrorInfo and BadRequest as
 * the ProtoJSON `{ "@type": … }` objects an HTTP+JSON error body carries; undefined when absent
 * or unreadable.
 */
const statusDetails = (metadata: Metadata | undefined): unknown[] | undefined => {
  const raw = metadata?.get(GRPC_METADATA.statusDetails)[0]
  if (!Buffer.isBuffer(raw)) return undefined
  try {
    const { errorInfo, badRequest } = decodeStatusDetails(raw)
    const details: unknown[] = []
    if (errorInfo)
      details.push({
        '@type': `type.googleapis.com/${ErrorInfoSchema.typeName}`,
        reason: errorInfo.reason,
        domain: errorInfo.domain,
        metadata: { ...errorInfo.metadata },
      })
    if (badRequest)
      details.push({
        '@type': `type.googleapis.com/${BadRequestSchema.typeName}`,
        fieldViolations: badRequest.fieldViolations.map((v) => ({
          field: v.field,
          description: v.description,
        })),
      })
    return details
  } catch {
    return undefined
  }
}

/** What a bare gRPC status code says when no ErrorInfo names the error (cf. codeOfStatus for HTTP). */
const CODE_OF_STATUS: Readonly<Partial<Record<GrpcStatus, ClientErrorCode>>> = {
  [GrpcStatus.CANCELLED]: 'ABORTED',
  [GrpcStatus.UNKNOWN]: 'INTERNAL',
  [GrpcStatus.INVALID_ARGUMENT]: 'INVALID_REQUEST',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'TIMEOUT',
  [GrpcStatus.NOT_FOUND]: 'TASK_NOT_FOUND',
  [GrpcStatus.ALREADY_EXISTS]: 'INVALID_REQUEST',
  [GrpcStatus.PERMISSION_DENIED]: 'FORBIDDEN',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'RATE_LIMITED',
  [GrpcStatus.FAILED_PRECONDITION]: 'INVALID_REQUEST',
  [GrpcStatus.ABORTED]: 'INVALID_TRANSITION',
  [GrpcStatus.OUT_OF_RANGE]: 'INVALID_REQUEST',
  [GrpcStatus.UNIMPLEMENTED]: 'METHOD_NOT_FOUND',
  [GrpcStatus.INTERNAL]: 'INTERNAL',
  [GrpcStatus.UNAVAILABLE]: 'UNAVAILABLE',
  [GrpcStatus.DATA_LOSS]: 'INTERNAL',
  [GrpcStatus.UNAUTHENTICATED]: 'UNAUTHENTICATED',
}

/** grpc-js sets this when no HTTP/2 connection could be made: the request never left. */
const NO_CONNECTION =
  /No connection established|Failed to connect|Name resolution failed|DNS resolution failed/i

/**
 * A failed call as a ClientError. Without status details, UNAVAILABLE (no connection) and
 * UNIMPLEMENTED (no A2A service on that port) mean nothing of the agent answered: another
 * interface may be tried, as after an HTTP 404 or a refused connection.
 */
export const fromGrpcError = (error: ServiceError, what: string): ClientError => {
  const details = statusDetails(error.metadata)
  const fallback = CODE_OF_STATUS[error.code as GrpcStatus] ?? 'INTERNAL'
  const statusName = GrpcStatus[error.code] ?? String(error.code)
  const message = error.details || `${what}: gRPC ${statusName}`
  const bare = details === undefined || details.length === 0
  const unreachable =
    bare &&
    (error.code === GrpcStatus.UNIMPLEMENTED ||
      (error.code === GrpcStatus.UNAVAILABLE && NO_CONNECTION.test(error.details ?? '')))
  const code: ClientErrorCode =
    unreachable && error.code === GrpcStatus.UNAVAILABLE ? 'CONNECTION_FAILED' : fallback
  const challenge = error.metadata?.get('www-authenticate')[0]
  return fromA2aStatus({
    message: unreachable ? `${what}: ${message}` : message,
    details,
    fallback: code,
    extra: { grpcStatus: statusName },
    unreachable,
    headers: {
      get: (name) => (name === 'www-authenticate' && typeof challenge === 'string' ? challenge : null),
    },
    cause: error,
  })
}

export const isServiceError = (error: unknown): error is ServiceError =>
  error instanceof Error && typeof (error as ServiceError).code === 'number' && 'metadata' in error
