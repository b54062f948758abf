"""The clouds (Bedrock, Vertex AI, Azure OpenAI): where a model lives, and credentials.

Nothing here is imported on the start-up path of a non-cloud model: the registry, the
stream and the cloud wires import these modules when a target first needs them.

- ``base``: the ``Cloud`` protocol each cloud module provides as ``CLOUD`` (placement,
  completion, status) and ``load_cloud``; a registry row names its cloud's module;
- ``aws`` (amazon-bedrock): the AWS credential chain and region; its I/O steps in
  ``_aws_fetch`` and ``_aws_sts``, the shared files and types in ``_aws_profile``;
  ``sigv4``: AWS Signature Version 4 (sans-IO, pinned by the published test vectors);
- ``google`` (google-vertex): application default credentials, token and project caches;
  the calls in ``_google_fetch``, the shared types in ``_google_adc``; ``_jwt`` RS256;
- ``azure`` (azure): the endpoint, API version, and the api-key or Entra ID bearer token;
- ``status``: what ``earshot providers`` and ``earshot doctor`` show, for any cloud.
"""
