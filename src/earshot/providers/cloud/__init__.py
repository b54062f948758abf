"""Cloud credentials and signing for the cloud wires (Bedrock, Vertex AI, Azure OpenAI).

Nothing here is imported on the start-up path of a non-cloud model: the cloud wires import
these modules when a target first needs them.

- ``sigv4``: AWS Signature Version 4 (sans-IO, pinned by the published test vectors);
- ``aws``: the AWS credential chain and region, in the order the AWS tools use;
- ``google``: Google application default credentials and the token cache;
- ``azure``: the Azure OpenAI api-key or Entra ID bearer token.
"""
