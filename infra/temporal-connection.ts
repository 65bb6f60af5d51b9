/**
 * Temporal client connections that can be closed while calls are still retrying.
 *
 * The SDK's gRPC retry interceptor schedules each retry on a timer. If the connection is closed while
 * such a timer is pending (an API stopping while Temporal is down, a health probe that timed out on
 * our side), the timer calls into the closed channel, grpc-js throws "Channel has been shut down" from
 * the timer, and the process dies of an uncaught exception. The guard below sits between the retry
 * interceptor and the channel and turns that throw into an ordinary failed call (status CANCELLED, which
 * the retry interceptor does not retry), so the caller gets an error and nothing is thrown from a timer.
 */
import {
  InterceptingCall,
  Metadata,
  status as GrpcStatus,
  type Interceptor,
  type InterceptingListener,
} from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';

/** What InterceptingCall wraps (grpc-js does not export the interface's name). */
type NextCallObject = ConstructorParameters<typeof InterceptingCall>[0];

/** A call that never reaches a channel: it reports `details` with status CANCELLED as soon as it starts. */
function failedCall(details: string): NextCallObject {
  return {
    cancelWithStatus: () => {},
    getPeer: () => '',
    start(_metadata: Metadata, listener?: Partial<InterceptingListener>) {
      queueMicrotask(() =>
        listener?.onReceiveStatus?.({ code: GrpcStatus.CANCELLED, details, metadata: new Metadata() }),
      );
    },
    sendMessageWithContext: () => {},
    sendMessage: () => {},
    startRead: () => {},
    halfClose: () => {},
    getAuthContext: () => null,
  };
}

/**
 * gRPC interceptor that catches a throw from the channel when a call starts (grpc-js throws
 * synchronously once the channel is closed) and fails that call with status CANCELLED instead.
 * Must come after the retry interceptor in the list, so it wraps every retry attempt.
 */
export const closedChannelGuard: Interceptor = (options, nextCall) => {
  try {
    return new InterceptingCall(nextCall(options));
  } catch (err) {
    return new InterceptingCall(failedCall(err instanceof Error ? err.message : String(err)));
  }
};

/** The SDK's default retry interceptor followed by {@link closedChannelGuard}. */
export function guardedInterceptors(): NonNullable<ConnectionOptions['interceptors']> {
  return [makeGrpcRetryInterceptor(defaultGrpcRetryOptions()), closedChannelGuard];
}

/**
 * `Connection.connect` with {@link guardedInterceptors}, so `close()` is safe while calls retry.
 * @throws what `Connection.connect` throws when the server does not answer
 */
export function connectTemporal(options: Omit<ConnectionOptions, 'interceptors'>): Promise<Connection> {
  return Connection.connect({ ...options, interceptors: guardedInterceptors() });
}

/** `Connection.lazy` with {@link guardedInterceptors}; connects on the first call. */
export function lazyTemporal(options: Omit<ConnectionOptions, 'interceptors'>): Connection {
  return Connection.lazy({ ...options, interceptors: guardedInterceptors() });
}
