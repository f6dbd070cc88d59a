export const GRPC_SERVICE = "scalelab.testbed.v1.Hostname";
/** The method as k6's `client.invoke` names it. */
export const GRPC_METHOD = "scalelab.testbed.v1.Hostname/Get";
/** Response metadata naming the replica, the gRPC twin of the X-Backend header. */
export const GRPC_BACKEND_METADATA = "x-backend";

/**
 * The service's .proto, for k6's `client.load()`: a copy of apps/testbed/internal/server/hostname.proto
 * (the test keeps them equal). The server has no generated code, so this text is the contract.
 */
export const HOSTNAME_PROTO = `// The testbed's gRPC service (internal/server/grpc.go), as load generators load it. The server
// has no generated code: it decodes google.protobuf.Empty and answers
// google.protobuf.StringValue, which are wire-identical to the messages below.
syntax = "proto3";

package scalelab.testbed.v1;

// Hostname is a work request like GET /hostname. Every response, errors included, carries the
// metadata x-backend: <hostname>, as every HTTP response carries X-Backend.
service Hostname {
  rpc Get(GetRequest) returns (GetReply);
}

message GetRequest {}

message GetReply {
  string hostname = 1;
}
`;
