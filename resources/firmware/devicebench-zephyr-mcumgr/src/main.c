/*
 * DeviceBench example: a stock Zephyr application with MCUboot and MCUmgr over BLE that takes
 * its product identity from four settings keys (docs/mcumgr/settings.md). DeviceBench writes
 * them with MCUmgr's settings group, saves, and resets the board; at boot this code reads
 * them and, when all four are there, advertises the product's service UUID and serves the
 * PSDI read-only, which is what the platform's client and DeviceBench's verify look for.
 */
#include <string.h>
#include <zephyr/kernel.h>
#include <zephyr/settings/settings.h>
#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/bluetooth/conn.h>
#include <zephyr/bluetooth/gatt.h>
#include <zephyr/bluetooth/uuid.h>

#define PSDI_MAX 64

/* What the settings handler holds: a UUID is text (any UUID form) or 16 bytes. */
struct identity {
	uint8_t service[16];
	uint8_t psdi_service[16];
	uint8_t psdi_characteristic[16];
	char psdi[PSDI_MAX + 1];
	uint8_t found; /* one bit per key */
};

/* The keys' current values (MCUmgr writes land here at once)... */
static struct identity identity;
/* ...and what the board booted with, which is what it advertises and serves. */
static struct identity booted;

/* Hex digits of a UUID in any form into 16 bytes, most significant first; 0 when it is one. */
static int uuid_from_text(const char *text, size_t len, uint8_t out[16])
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		uint8_t v;

		if (c == '-' || c == '{' || c == '}') {
			continue;
		}
		if (c >= '0' && c <= '9') {
			v = c - '0';
		} else if (c >= 'a' && c <= 'f') {
			v = c - 'a' + 10;
		} else if (c >= 'A' && c <= 'F') {
			v = c - 'A' + 10;
		} else {
			return -EINVAL;
		}
		if (n >= 32) {
			return -EINVAL;
		}
		out[n / 2] = (n % 2) ? (out[n / 2] | v) : (uint8_t)(v << 4);
		n++;
	}
	return n == 32 ? 0 : -EINVAL;
}

static int read_uuid(size_t len, settings_read_cb read_cb, void *cb_arg, uint8_t out[16])
{
	char buf[40];

	if (len > sizeof(buf)) {
		return -EINVAL;
	}
	ssize_t got = read_cb(cb_arg, buf, len);

	if (got < 0) {
		return (int)got;
	}
	if (got == 16) {
		memcpy(out, buf, 16);
		return 0;
	}
	return uuid_from_text(buf, (size_t)got, out);
}

static int devicebench_set(const char *name, size_t len, settings_read_cb read_cb, void *cb_arg)
{
	const char *next;

	if (settings_name_steq(name, "service_uuid", &next) && !next) {
		if (read_uuid(len, read_cb, cb_arg, identity.service) == 0) {
			identity.found |= BIT(0);
		}
		return 0;
	}
	if (settings_name_steq(name, "psdi_service_uuid", &next) && !next) {
		if (read_uuid(len, read_cb, cb_arg, identity.psdi_service) == 0) {
			identity.found |= BIT(1);
		}
		return 0;
	}
	if (settings_name_steq(name, "psdi_characteristic_uuid", &next) && !next) {
		if (read_uuid(len, read_cb, cb_arg, identity.psdi_characteristic) == 0) {
			identity.found |= BIT(2);
		}
		return 0;
	}
	if (settings_name_steq(name, "psdi", &next) && !next) {
		if (len == 0 || len > PSDI_MAX) {
			return -EINVAL;
		}
		ssize_t got = read_cb(cb_arg, identity.psdi, len);

		if (got > 0) {
			identity.psdi[got] = '\0';
			identity.found |= BIT(3);
		}
		return 0;
	}
	return -ENOENT;
}

/* For MCUmgr's settings read: the current value (UUIDs as 16 bytes). */
static int devicebench_get(const char *name, char *val, int val_len_max)
{
	const char *next;
	const void *value = NULL;
	int len = 0;

	if (settings_name_steq(name, "service_uuid", &next) && !next) {
		value = identity.service;
		len = (identity.found & BIT(0)) ? 16 : 0;
	} else if (settings_name_steq(name, "psdi_service_uuid", &next) && !next) {
		value = identity.psdi_service;
		len = (identity.found & BIT(1)) ? 16 : 0;
	} else if (settings_name_steq(name, "psdi_characteristic_uuid", &next) && !next) {
		value = identity.psdi_characteristic;
		len = (identity.found & BIT(2)) ? 16 : 0;
	} else if (settings_name_steq(name, "psdi", &next) && !next) {
		value = identity.psdi;
		len = (identity.found & BIT(3)) ? (int)strlen(identity.psdi) : 0;
	} else {
		return -ENOENT;
	}
	if (len > val_len_max) {
		return -EINVAL;
	}
	memcpy(val, value, len);
	return len;
}

/* Keys devicebench/<name>; values written over MCUmgr count from the next boot. */
SETTINGS_STATIC_HANDLER_DEFINE(devicebench, "devicebench", devicebench_get, devicebench_set, NULL,
			       NULL);

static struct bt_uuid_128 psdi_service_uuid = BT_UUID_INIT_128(0);
static struct bt_uuid_128 psdi_characteristic_uuid = BT_UUID_INIT_128(0);

static ssize_t read_psdi(struct bt_conn *conn, const struct bt_gatt_attr *attr, void *buf,
			 uint16_t len, uint16_t offset)
{
	return bt_gatt_attr_read(conn, attr, buf, len, offset, booted.psdi, strlen(booted.psdi));
}

static struct bt_gatt_attr psdi_attrs[] = {
	BT_GATT_PRIMARY_SERVICE(&psdi_service_uuid),
	BT_GATT_CHARACTERISTIC(&psdi_characteristic_uuid.uuid, BT_GATT_CHRC_READ,
			       BT_GATT_PERM_READ, read_psdi, NULL, NULL),
};
static struct bt_gatt_service psdi_service = BT_GATT_SERVICE(psdi_attrs);

/* BT_UUID_128 values are little-endian: the text's bytes reversed. */
static void to_le(const uint8_t be[16], uint8_t le[16])
{
	for (int i = 0; i < 16; i++) {
		le[i] = be[15 - i];
	}
}

static uint8_t product_uuid_le[16];
static struct bt_data ad[] = {
	BT_DATA_BYTES(BT_DATA_FLAGS, (BT_LE_AD_GENERAL | BT_LE_AD_NO_BREDR)),
	BT_DATA(BT_DATA_UUID128_ALL, product_uuid_le, 16),
};
/* The MCUmgr (SMP) service, 8d53dc1d-1db7-4cd3-868b-8a527460aa84, and the name. */
static const struct bt_data sd[] = {
	BT_DATA_BYTES(BT_DATA_UUID128_ALL, 0x84, 0xaa, 0x60, 0x74, 0x52, 0x8a, 0x8b, 0x86, 0xd3,
		      0x4c, 0xb7, 0x1d, 0x1d, 0xdc, 0x53, 0x8d),
	BT_DATA(BT_DATA_NAME_COMPLETE, CONFIG_BT_DEVICE_NAME, sizeof(CONFIG_BT_DEVICE_NAME) - 1),
};

static bool provisioned;

static void advertise(void)
{
	/* Before provisioning, only the flags: the board is found by its name and MCUmgr. */
	int err = bt_le_adv_start(BT_LE_ADV_CONN_FAST_1, ad, provisioned ? ARRAY_SIZE(ad) : 1, sd,
				  ARRAY_SIZE(sd));

	if (err && err != -EALREADY) {
		printk("advertising failed (%d)\n", err);
	}
}

static void recycled(void)
{
	advertise();
}

BT_CONN_CB_DEFINE(conn_callbacks) = {
	.recycled = recycled,
};

int main(void)
{
	int err = bt_enable(NULL);

	if (err) {
		printk("Bluetooth failed to start (%d)\n", err);
		return 0;
	}
	settings_load();
	booted = identity;

	provisioned = booted.found == (BIT(0) | BIT(1) | BIT(2) | BIT(3));
	if (provisioned) {
		to_le(booted.service, product_uuid_le);
		to_le(booted.psdi_service, psdi_service_uuid.val);
		to_le(booted.psdi_characteristic, psdi_characteristic_uuid.val);
		err = bt_gatt_service_register(&psdi_service);
		if (err) {
			printk("PSDI service not registered (%d)\n", err);
		}
		printk("provisioned: PSDI %s\n", booted.psdi);
	} else {
		printk("not provisioned: waiting for the devicebench/* settings over MCUmgr\n");
	}
	advertise();
	return 0;
}
