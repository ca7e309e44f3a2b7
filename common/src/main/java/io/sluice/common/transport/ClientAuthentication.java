package io.sluice.common.transport;

import io.sluice.common.auth.AuthProofs;
import io.sluice.common.auth.Credentials;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.message.AuthChallengeResponse;
import io.sluice.common.protocol.message.AuthProofRequest;
import io.sluice.common.protocol.message.AuthProofResponse;
import io.sluice.common.protocol.message.AuthRequest;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The client's side of a connection's authentication, right after the handshake: claims the role of
 * its {@link Credentials}, proves the secret against the server's nonce, and checks the server's
 * proof in turn, so that data never goes to a peer that does not hold the same secret.
 */
final class ClientAuthentication {
  /** The first protocol version with authentication. */
  static final int SINCE_VERSION = 4;

  private ClientAuthentication() {}

  /** Completes when the connection is authenticated (at once for {@link Credentials#none()}). */
  static CompletableFuture<Void> run(TransportClient client, Credentials as, int version) {
    if (as.isNone()) {
      return CompletableFuture.completedFuture(null);
    }
    if (version < SINCE_VERSION) {
      return CompletableFuture.failedFuture(
          new IOException(
              "server "
                  + client.serverId()
                  + " speaks protocol "
                  + version
                  + ", which has no authentication: upgrade it"));
    }
    byte[] clientNonce = AuthProofs.nonce();
    return client
        .request(
            new AuthRequest(TransportClient.nextRequestId(), as.role(), as.appId(), clientNonce),
            AuthChallengeResponse.class)
        .thenCompose(
            challenge -> {
              AuthProofs.Transcript t =
                  new AuthProofs.Transcript(
                      as.role(), as.appId(), clientNonce, challenge.serverNonce());
              byte[] wrapped =
                  as.role() == AuthRole.REGISTRAR
                      ? AuthProofs.wrap(as.proofKey(), as.appSecret(), t)
                      : new byte[0];
              return client
                  .request(
                      new AuthProofRequest(
                          TransportClient.nextRequestId(),
                          AuthProofs.clientProof(as.proofKey(), t),
                          wrapped),
                      AuthProofResponse.class)
                  .thenAccept(
                      answer -> {
                        if (!AuthProofs.matches(
                            AuthProofs.serverProof(as.proofKey(), t), answer.serverMac())) {
                          throw new CompletionException(
                              new IOException(
                                  "server "
                                      + client.serverId()
                                      + " did not prove that it holds the secret of "
                                      + as
                                      + "; not using the connection"));
                        }
                      });
            });
  }
}
