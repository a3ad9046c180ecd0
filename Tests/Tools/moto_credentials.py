#!/usr/bin/env python3
"""Makes credentials on a moto server that enforces authentication, for the S3 tests.

moto (started with INITIAL_NO_AUTH_ACTION_COUNT=3) accepts three unsigned requests, then checks
the Signature V4 of every request against the keys its IAM knows. This spends the three on a user
with an allow-all policy and a long-term access key, then, signed with that key, makes a role and
assumes it for temporary credentials (with a session token). Prints one JSON object:
{"accessKeyID", "secretAccessKey", "temporary": {"accessKeyID", "secretAccessKey", "sessionToken"}}.

Usage: moto_credentials.py ENDPOINT
"""
import json
import sys

import boto3

endpoint = sys.argv[1]
allow_all = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def client(service, key="unused", secret="unused"):
    return boto3.client(service, endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret)


anonymous = client("iam")
anonymous.create_user(UserName="stratus-tests")
anonymous.put_user_policy(UserName="stratus-tests", PolicyName="allow-all", PolicyDocument=allow_all)
key = anonymous.create_access_key(UserName="stratus-tests")["AccessKey"]

iam = client("iam", key["AccessKeyId"], key["SecretAccessKey"])
trust = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]})
role = iam.create_role(RoleName="stratus-blobs", AssumeRolePolicyDocument=trust)["Role"]
iam.put_role_policy(RoleName="stratus-blobs", PolicyName="allow-all", PolicyDocument=allow_all)
temporary = client("sts", key["AccessKeyId"], key["SecretAccessKey"]).assume_role(
    RoleArn=role["Arn"], RoleSessionName="stratus-tests")["Credentials"]

print(json.dumps({
    "accessKeyID": key["AccessKeyId"],
    "secretAccessKey": key["SecretAccessKey"],
    "temporary": {
        "accessKeyID": temporary["AccessKeyId"],
        "secretAccessKey": temporary["SecretAccessKey"],
        "sessionToken": temporary["SessionToken"],
    },
}))
