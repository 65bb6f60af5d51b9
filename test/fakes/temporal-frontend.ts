/**
 * A stand-in for a hosted Temporal frontend (Temporal Cloud) that speaks Temporal's gRPC protocol on 127.0.0.1,
 * for the start-up path only: `GetSystemInfo` answers, `ListSearchAttributes` lists no custom attribute, and
 * `AddSearchAttributes` is refused with `denyCode` (Cloud answers PermissionDenied or Unimplemented there, as
 * attributes are managed with `tcld`). Every other method is Unimplemented.
 */
import {
  Server,
  ServerCredentials,
  status,
  type ServiceDefinition,
  type sendUnaryData,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import proto from '@temporalio/proto';

interface ProtoType<T> {
  encode(m: T): { finish(): Uint8Array };
  decode(b: Uint8Array): T;
  create(p?: object): T;
}

function unary<Req, Res>(path: string, req: ProtoType<Req>, res: ProtoType<Res>) {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: Req) => Buffer.from(req.encode(m).finish()),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (m: Res) => Buffer.from(res.encode(m).finish()),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

const { temporal } = proto;
const ws = temporal.api.workflowservice.v1;
const os = temporal.api.operatorservice.v1;

export interface FakeFrontend {
  address: string;
  /** Calls received, by method name. */
  calls: string[];
  close(): Promise<void>;
}

export async function startFakeFrontend(opts: { denyCode?: status } = {}): Promise<FakeFrontend> {
  const calls: string[] = [];
  const server = new Server();
  const workflowService = {
    GetSystemInfo: unary(
      '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo',
      ws.GetSystemInfoRequest,
      ws.GetSystemInfoResponse,
    ),
  } as unknown as ServiceDefinition;
  const operatorService = {
    ListSearchAttributes: unary(
      '/temporal.api.operatorservice.v1.OperatorService/ListSearchAttributes',
      os.ListSearchAttributesRequest,
      os.ListSearchAttributesResponse,
    ),
    AddSearchAttributes: unary(
      '/temporal.api.operatorservice.v1.OperatorService/AddSearchAttributes',
      os.AddSearchAttributesRequest,
      os.AddSearchAttributesResponse,
    ),
  } as unknown as ServiceDefinition;
  server.addService(workflowService, {
    GetSystemInfo: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      calls.push('GetSystemInfo');
      cb(null, ws.GetSystemInfoResponse.create({ serverVersion: '1.29.1', capabilities: {} }));
    },
  });
  server.addService(operatorService, {
    ListSearchAttributes: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      calls.push('ListSearchAttributes');
      cb(null, os.ListSearchAttributesResponse.create({ customAttributes: {}, systemAttributes: {} }));
    },
    AddSearchAttributes: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      calls.push('AddSearchAttributes');
      cb({ code: opts.denyCode ?? status.PERMISSION_DENIED, details: 'Request unauthorized.' });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}
