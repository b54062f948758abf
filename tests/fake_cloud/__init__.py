"""Loopback fakes of the cloud services (AWS, Google Cloud, Azure OpenAI), each speaking the
real protocol closely enough that the vendor's official client library works against it (the
tests in tests/cloud check that), and checking earshot's signatures and tokens the way the
service does."""
