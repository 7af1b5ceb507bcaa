// Reads back, with Confluent's own JavaScript deserializers
// (@confluentinc/schemaregistry: JsonDeserializer, AvroDeserializer,
// ProtobufDeserializer), frames that `dataschema::Framer` wrote, for
// tests/framer/confluent_node.rs.
//
//     NODE_PATH=<node_modules> node framer_readback.js URL DIR
//
// DIR holds json.bin, avro.bin and protobuf.bin (frames of a JSON Schema,
// an Avro and a protobuf schema that a dataschema server at URL holds
// under the ids the frames carry). Each frame is deserialized by a fresh
// client (the writer schema fetched by id from the server's Confluent
// API); the decoded values are printed as one JSON object
// {"json": ..., "avro": ..., "protobuf": ...} on the last line, for the
// test to compare with what was framed.
'use strict';

const fs = require('fs');
const path = require('path');
const {
  AvroDeserializer,
  JsonDeserializer,
  ProtobufDeserializer,
  SchemaRegistryClient,
  SerdeType,
} = require('@confluentinc/schemaregistry');

async function main() {
  const [url, directory] = process.argv.slice(2);
  const read = (name) => fs.readFileSync(path.join(directory, name));
  const client = () => new SchemaRegistryClient({ baseURLs: [url] });
  const decoded = {};

  decoded.json = await new JsonDeserializer(client(), SerdeType.VALUE, {}).deserialize(
    'events',
    read('json.bin'),
  );
  console.log('ok  JsonDeserializer');

  decoded.avro = await new AvroDeserializer(client(), SerdeType.VALUE, {}).deserialize(
    'events',
    read('avro.bin'),
  );
  console.log('ok  AvroDeserializer');

  // No generated classes: the message type the frame's indexes name, from
  // the writer schema fetched by id.
  const message = await new ProtobufDeserializer(client(), SerdeType.VALUE, {}).deserialize(
    'events',
    read('protobuf.bin'),
  );
  decoded.protobuf = {
    type: message.$typeName,
    id: message.id,
    source: { host: message.source && message.source.host },
  };
  console.log('ok  ProtobufDeserializer');

  console.log(
    JSON.stringify(decoded, (_, value) => (typeof value === 'bigint' ? value.toString() : value)),
  );
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
