package io.sluice.common.transport;

import io.sluice.common.auth.AuthOptions;
import io.sluice.common.auth.AuthProofs;
import io.sluice.common.auth.Identity;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AuthChallengeResponse;
import io.sluice.common.protocol.message.AuthProofRequest;
import io.sluice.common.protocol.message.AuthProofResponse;
import io.sluice.common.protocol.message.AuthRequest;
import java.security.GeneralSecurityException;

/**
 * The server's side of one connection's authentication: the challenge for an {@link AuthRequest},
 * then the check of the {@link AuthProofRequest}. Any failure ends the connection (the caller
 * closes it); nothing a peer sends can make it skip the proof. Used on the connection's event loop
 * only.
 */
final class ConnectionAuth {
  /** Why authentication failed: the status and message of the answer before the close. */
  static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    private final StatusCode status;

    Failure(StatusCode status, String message) {
      super(message, null, false, false);
      this.status = status;
    }

    StatusCode status() {
      return status;
    }
  }

  private final ServerAuth auth;
  private AuthProofs.Transcript transcript;
  private Secret key;

  ConnectionAuth(ServerAuth auth) {
    this.auth = auth;
  }

  AuthChallengeResponse challenge(AuthRequest request) throws Failure {
    if (!auth.required()) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "authentication is not enabled on this "
              + "server ('"
              + AuthOptions.ENABLED.key()
              + "' is false): enable it here or turn it off "
              + "in the client");
    }
    if (transcript != null) {
      throw new Failure(StatusCode.UNAUTHENTICATED, "a second AuthRequest on one connection");
    }
    AuthRole role = request.role();
    if (!auth.roles().contains(role)) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "this server does not serve the " + role + " role; it serves " + auth.roles());
    }
    if (role.isApplicationScoped() == request.appId().isEmpty()) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "the "
              + role
              + " role "
              + (role.isApplicationScoped() ? "needs" : "takes no")
              + " application id");
    }
    if (role == AuthRole.APPLICATION) {
      key = auth.appSecrets().apply(request.appId());
      if (key == null) {
        throw new Failure(
            StatusCode.UNKNOWN_APPLICATION,
            "application " + request.appId() + " is not registered on this server");
      }
    } else {
      key = auth.clusterSecret();
    }
    transcript =
        new AuthProofs.Transcript(role, request.appId(), request.clientNonce(), AuthProofs.nonce());
    return new AuthChallengeResponse(request.requestId(), transcript.serverNonce());
  }

  /** Checks the proof; on success the connection's identity and the answer proving this server. */
  Identity verify(AuthProofRequest proof) throws Failure {
    if (transcript == null) {
      throw new Failure(StatusCode.UNAUTHENTICATED, "an AuthProofRequest before an AuthRequest");
    }
    if (!AuthProofs.matches(AuthProofs.clientProof(key, transcript), proof.mac())) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "wrong secret for the "
              + transcript.role()
              + " role"
              + (transcript.appId().isEmpty() ? "" : " of " + transcript.appId()));
    }
    return switch (transcript.role()) {
      case CLUSTER -> new Identity(AuthRole.CLUSTER, "", null);
      case APPLICATION -> new Identity(AuthRole.APPLICATION, transcript.appId(), key);
      case REGISTRAR -> new Identity(AuthRole.REGISTRAR, transcript.appId(), registered(proof));
    };
  }

  AuthProofResponse answer(long requestId) {
    return new AuthProofResponse(requestId, AuthProofs.serverProof(key, transcript));
  }

  /** The application secret a registrar brought; it must match one this server already holds. */
  private Secret registered(AuthProofRequest proof) throws Failure {
    Secret secret;
    try {
      secret = AuthProofs.unwrap(auth.clusterSecret(), proof.wrappedSecret(), transcript);
    } catch (GeneralSecurityException e) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "the registrar's application secret cannot " + "be unwrapped: " + e.getMessage());
    }
    Secret known = auth.appSecrets().apply(transcript.appId());
    if (known != null && !known.equals(secret)) {
      throw new Failure(
          StatusCode.UNAUTHENTICATED,
          "application "
              + transcript.appId()
              + " is registered on this server with another secret");
    }
    return secret;
  }
}
