package server

import (
	"context"
	"net/http"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"scalelab/testbed/internal/config"
)

// The gRPC service of hostname.proto.
const (
	grpcService   = "scalelab.testbed.v1.Hostname"
	grpcGetMethod = "/" + grpcService + "/Get"
	// backendMetadata names the replica in every gRPC response, like the X-Backend header.
	backendMetadata = "x-backend"
)

// NewGRPC returns the gRPC server of the service role (plaintext HTTP/2, as balancers and
// load generators speak it without TLS). Its one method is a work request like GET /hostname:
// it shares d's pool, counters, log and downstream with the HTTP handler.
//
// There is no generated code: the service is described by hand, and the method decodes
// google.protobuf.Empty and answers google.protobuf.StringValue, wire-identical to
// hostname.proto's GetRequest and GetReply. The server installs no interceptors, so the
// method handler ignores them.
func NewGRPC(cfg config.Config, hostname string, d Deps) *grpc.Server {
	s := newServer(cfg, hostname, d)
	g := grpc.NewServer()
	g.RegisterService(&grpc.ServiceDesc{
		ServiceName: grpcService,
		Methods:     []grpc.MethodDesc{{MethodName: "Get", Handler: s.getHostname}},
		Metadata:    "hostname.proto",
	}, nil)
	return g
}

func (s *server) getHostname(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
	if err := grpc.SetHeader(ctx, metadata.Pairs(backendMetadata, s.hostname)); err != nil {
		return nil, err
	}
	if err := dec(new(emptypb.Empty)); err != nil {
		return nil, err
	}
	req := request{method: http.MethodPost, path: grpcGetMethod}
	if p, ok := peer.FromContext(ctx); ok {
		req.remote = p.Addr.String()
	}
	// The reply is the hostname itself, as in GET /hostname.
	code, body := s.doWork(ctx, req, func() (int, any) { return http.StatusOK, nil })
	if code >= 300 {
		// 503 (queue full, downstream not ready) or 502 (downstream failed): both are
		// UNAVAILABLE in gRPC's mapping of HTTP statuses.
		errBody, _ := body.(map[string]string)
		return nil, status.Error(codes.Unavailable, errBody["error"])
	}
	return wrapperspb.String(s.hostname), nil
}
