// DeviceBench reference firmware: the devicebench-v1 provisioning profile on an ESP32 with
// NimBLE-Arduino 2.x (docs/provisioning-protocol.md). A blank board advertises the
// provisioning service; a good commit stores the product identity in NVS and reboots into
// product mode, advertising the product's serviceUuid and serving the PSDI read-only. Holding
// the BOOT button for 5 s erases the identity (factory reset).
#include <Arduino.h>
#include <NimBLEDevice.h>
#include <Preferences.h>

// ---- Profile devicebench-v1 (resources/profiles/devicebench-v1.json) ----
static const char* PROVISIONING_SERVICE = "8f1d0000-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_SERVICE_UUID = "8f1d0001-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_PSDI_SERVICE_UUID = "8f1d0002-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_PSDI_CHARACTERISTIC_UUID = "8f1d0003-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_PSDI = "8f1d0004-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_CONTROL = "8f1d0005-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const char* CHR_STATUS = "8f1d0006-6b4e-4c5a-9d3e-2a7c5b1e0f00";
static const uint8_t COMMIT_VALUE = 0x01;
static const size_t UUID_BYTES = 16;     // uuidEncoding "bytes"
static const size_t PSDI_MAX_BYTES = 20; // psdi.maxBytes

enum Status : uint8_t { BLANK = 0x00, PENDING = 0x01, COMMITTED = 0x02, REJECTED = 0x80 };

// ---- Board ----
static const char* DEVICE_NAME = "DB Proto";
static const int RESET_BUTTON_PIN = 0;           // BOOT on most ESP32 dev kits, active low
static const uint32_t RESET_HOLD_MS = 5000;
static const uint32_t REBOOT_AFTER_COMMIT_MS = 300; // lets the write response and notification out
static const char* NVS_NAMESPACE = "devicebench";

// The identity in NVS. `committed` is written last, so a power cut halfway through a commit
// leaves a blank board rather than half an identity.
struct Identity {
  String serviceUuid;
  String psdiServiceUuid;
  String psdiCharacteristicUuid;
  String psdi;
};

static Preferences prefs;
static bool provisioned = false;
static Identity identity;

// Values written since boot, not yet committed (RAM only, like the protocol says).
static String pendingUuids[3];
static String pendingPsdi;
static NimBLECharacteristic* statusCharacteristic = nullptr;
static volatile bool rebootRequested = false;
static uint32_t rebootAt = 0;

static bool loadIdentity(Identity& out) {
  prefs.begin(NVS_NAMESPACE, true);
  bool ok = prefs.getBool("committed", false);
  if (ok) {
    out.serviceUuid = prefs.getString("svc", "");
    out.psdiServiceUuid = prefs.getString("psdiSvc", "");
    out.psdiCharacteristicUuid = prefs.getString("psdiChr", "");
    out.psdi = prefs.getString("psdi", "");
    ok = out.serviceUuid.length() && out.psdiServiceUuid.length() &&
         out.psdiCharacteristicUuid.length() && out.psdi.length();
  }
  prefs.end();
  return ok;
}

// Each put is committed to flash by Preferences before it returns.
static bool storeIdentity(const Identity& id) {
  prefs.begin(NVS_NAMESPACE, false);
  prefs.putBool("committed", false);
  bool ok = prefs.putString("svc", id.serviceUuid) && prefs.putString("psdiSvc", id.psdiServiceUuid) &&
            prefs.putString("psdiChr", id.psdiCharacteristicUuid) && prefs.putString("psdi", id.psdi) &&
            prefs.putBool("committed", true);
  prefs.end();
  return ok;
}

static void eraseIdentity() {
  prefs.begin(NVS_NAMESPACE, false);
  prefs.clear();
  prefs.end();
}

// 16 bytes in the order the UUID reads → "8f1d0001-6b4e-…"; empty if the length is wrong.
static String uuidFromBytes(const uint8_t* data, size_t length) {
  if (length != UUID_BYTES) return String();
  char text[37];
  size_t at = 0;
  for (size_t i = 0; i < UUID_BYTES; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
    snprintf(&text[at], 3, "%02x", data[i]);
    at += 2;
  }
  text[at] = '\0';
  return String(text);
}

static void setStatus(Status status) {
  uint8_t value = status;
  statusCharacteristic->setValue(&value, 1);
  statusCharacteristic->notify();
}

class UuidCallbacks : public NimBLECharacteristicCallbacks {
 public:
  explicit UuidCallbacks(int index) : index(index) {}
  void onWrite(NimBLECharacteristic* characteristic, NimBLEConnInfo& connInfo) override {
    NimBLEAttValue value = characteristic->getValue();
    // Longer than 16 bytes is refused by the stack (maxLen); shorter leaves the value missing,
    // so a commit without a proper one is rejected.
    pendingUuids[index] = uuidFromBytes(value.data(), value.size());
    setStatus(PENDING);
  }

 private:
  int index;
};

class PsdiCallbacks : public NimBLECharacteristicCallbacks {
  void onWrite(NimBLECharacteristic* characteristic, NimBLEConnInfo& connInfo) override {
    NimBLEAttValue value = characteristic->getValue();
    pendingPsdi = String(reinterpret_cast<const char*>(value.data()), value.size());
    setStatus(PENDING);
  }
};

class ControlCallbacks : public NimBLECharacteristicCallbacks {
  void onWrite(NimBLECharacteristic* characteristic, NimBLEConnInfo& connInfo) override {
    NimBLEAttValue value = characteristic->getValue();
    bool complete = pendingUuids[0].length() && pendingUuids[1].length() && pendingUuids[2].length() &&
                    pendingPsdi.length();
    // NimBLE-Arduino answers a write once this callback returns and cannot answer it with an
    // error: a refusal is reported in the status byte, which the tool reads after every commit.
    if (value.size() != 1 || value.data()[0] != COMMIT_VALUE || !complete) {
      setStatus(REJECTED);
      return;
    }
    Identity next{pendingUuids[0], pendingUuids[1], pendingUuids[2], pendingPsdi};
    // Flash first: the write response goes out after this returns, so an acknowledged commit
    // is always on the board.
    if (!storeIdentity(next)) {
      setStatus(REJECTED);
      return;
    }
    setStatus(COMMITTED);
    // From now on the provisioning service must not be advertised again.
    NimBLEDevice::getServer()->advertiseOnDisconnect(false);
    rebootRequested = true;
    rebootAt = millis() + REBOOT_AFTER_COMMIT_MS;
  }
};

static void startProvisioningMode() {
  NimBLEServer* server = NimBLEDevice::createServer();
  NimBLEService* service = server->createService(PROVISIONING_SERVICE);
  const char* uuidCharacteristics[3] = {CHR_SERVICE_UUID, CHR_PSDI_SERVICE_UUID, CHR_PSDI_CHARACTERISTIC_UUID};
  for (int i = 0; i < 3; i++) {
    NimBLECharacteristic* c = service->createCharacteristic(
        uuidCharacteristics[i], NIMBLE_PROPERTY::READ | NIMBLE_PROPERTY::WRITE, UUID_BYTES);
    c->setCallbacks(new UuidCallbacks(i));
  }
  service->createCharacteristic(CHR_PSDI, NIMBLE_PROPERTY::READ | NIMBLE_PROPERTY::WRITE, PSDI_MAX_BYTES)
      ->setCallbacks(new PsdiCallbacks());
  service->createCharacteristic(CHR_CONTROL, NIMBLE_PROPERTY::WRITE, 1)->setCallbacks(new ControlCallbacks());
  statusCharacteristic = service->createCharacteristic(CHR_STATUS, NIMBLE_PROPERTY::READ | NIMBLE_PROPERTY::NOTIFY, 1);
  uint8_t blank = BLANK;
  statusCharacteristic->setValue(&blank, 1);

  NimBLEAdvertising* advertising = NimBLEDevice::getAdvertising();
  advertising->addServiceUUID(PROVISIONING_SERVICE);
  // A 128-bit UUID fills most of the 31-byte advertisement: the name goes in the scan response.
  advertising->enableScanResponse(true);
  advertising->setName(DEVICE_NAME);
  advertising->start();
  Serial.println("devicebench: blank, advertising the provisioning service");
}

static void startProductMode(const Identity& id) {
  NimBLEServer* server = NimBLEDevice::createServer();
  NimBLEService* service = server->createService(id.psdiServiceUuid.c_str());
  NimBLECharacteristic* psdi =
      service->createCharacteristic(id.psdiCharacteristicUuid.c_str(), NIMBLE_PROPERTY::READ, id.psdi.length());
  psdi->setValue(reinterpret_cast<const uint8_t*>(id.psdi.c_str()), id.psdi.length());
  // The product's own services (sensors, LEDs, …) would be created here.

  NimBLEAdvertising* advertising = NimBLEDevice::getAdvertising();
  advertising->addServiceUUID(id.serviceUuid.c_str());
  advertising->enableScanResponse(true);
  advertising->setName(DEVICE_NAME);
  advertising->start();
  Serial.printf("devicebench: product %s, PSDI %s\n", id.serviceUuid.c_str(), id.psdi.c_str());
}

// Held for RESET_HOLD_MS: erase and reboot blank. Polled, so a bounce cannot trigger it.
static void checkFactoryReset() {
  static uint32_t pressedSince = 0;
  if (digitalRead(RESET_BUTTON_PIN) == LOW) {
    if (pressedSince == 0) pressedSince = millis();
    if (millis() - pressedSince >= RESET_HOLD_MS) {
      Serial.println("devicebench: factory reset");
      eraseIdentity();
      ESP.restart();
    }
  } else {
    pressedSince = 0;
  }
}

void setup() {
  Serial.begin(115200);
  pinMode(RESET_BUTTON_PIN, INPUT_PULLUP);
  NimBLEDevice::init(DEVICE_NAME);
  // Room for the 20-byte PSDI and 16-byte UUIDs even if the central keeps the default MTU.
  NimBLEDevice::setMTU(185);
  provisioned = loadIdentity(identity);
  if (provisioned)
    startProductMode(identity);
  else
    startProvisioningMode();
}

void loop() {
  checkFactoryReset();
  if (rebootRequested && (int32_t)(millis() - rebootAt) >= 0) {
    NimBLEDevice::stopAdvertising();
    ESP.restart();
  }
  delay(20);
}
