/*
 * DeviceBench example: a stock Zephyr application with MCUboot and MCUmgr over BLE that takes
 * its product identity from four settings keys (docs/mcumgr/settings.md). DeviceBench writes
 * them with MCUmgr's settings group, saves, and resets the board; at boot this code reads
 * them and, when all four are there, advertises the product's service UUID and serves the
 * PSDI read-only, which is what the platform's client and DeviceBench's verify look for.
 */
#include <errno.h>
#include <string.h>
#include <zephyr/kernel.h>
/* The generated version header: zephyr/version.h in current trees, version.h in 3.4. */
#if __has_include(<zephyr/version.h>)
#include <zephyr/version.h>
#else
#include <version.h>
#endif
#include <zephyr/settings/settings.h>
#include <zephyr/bluetooth/bluetooth.h>
#include <zephyr/bluetooth/conn.h>
#include <zephyr/bluetooth/gatt.h>
#include <zephyr/bluetooth/uuid.h>

/* A PSDI fits what MCUmgr's settings read answers (32 bytes by default): it can be read back. */
#define PSDI_MAX CONFIG_MCUMGR_GRP_SETTINGS_VALUE_LEN

/*
 * What a settings read over MCUmgr gets for a key with no value: settings_mgmt answers "key not
 * found" (settings group 3, or ENOENT to an SMP v1 request) for the handler's -ENOENT since
 * Zephyr 3.5, and for -EINVAL before (3.4 had no "root key not found" to tell the two apart).
 * DeviceBench reads that answer as "no PSDI yet" (docs/mcumgr/settings.md).
 */
#if ZEPHYR_VERSION_CODE >= ZEPHYR_VERSION(3, 5, 0)
#define NO_VALUE (-ENOENT)
#else
#define NO_VALUE (-EINVAL)
#endif

/*
 * Connectable advertising: Zephyr 4.0 names it BT_LE_ADV_CONN_FAST_1 and no longer resumes it
 * after a disconnection, so the `recycled` callback starts it again; before 4.0 BT_LE_ADV_CONN
 * resumes by itself.
 */
#if ZEPHYR_VERSION_CODE >= ZEPHYR_VERSION(4, 0, 0)
#define ADV_CONNECTABLE BT_LE_ADV_CONN_FAST_1
#define RESUME_IN_RECYCLED 1
#else
#define ADV_CONNECTABLE BT_LE_ADV_CONN
#define RESUME_IN_RECYCLED 0
#endif

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
	if (settings_name_steq(name, "psdi_char_uuid", &next) && !next) {
		if (read_uuid(len, read_cb, cb_arg, identity.psdi_characteristic) == 0) {
			identity.found |= BIT(2);
		}
		return 0;
	}
	if (settings_name_steq(name, "psdi", &next) && !next) {
		/* Not -EINVAL: settings_mgmt would answer that as a key it does not know. */
		if (len == 0 || len > PSDI_MAX) {
			return -EMSGSIZE;
		}
		ssize_t got = read_cb(cb_arg, identity.psdi, len);

		if (got > 0) {
			identity.psdi[got] = '\0';
			identity.found |= BIT(3);
		}
		return 0;
	}
	return NO_VALUE;
}

/* For MCUmgr's settings read: the current value (UUIDs as 16 bytes); an unset key has none. */
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
	} else if (settings_name_steq(name, "psdi_char_uuid", &next) && !next) {
		value = identity.psdi_characteristic;
		len = (identity.found & BIT(2)) ? 16 : 0;
	} else if (settings_name_steq(name, "psdi", &next) && !next) {
		value = identity.psdi;
		len = (identity.found & BIT(3)) ? (int)strlen(identity.psdi) : 0;
	} else {
		return NO_VALUE;
	}
	if (len == 0) {
		return NO_VALUE;
	}
	if (len > val_len_max) {
		return -EMSGSIZE;
	}
	memcpy(val, value, len);
	return len;
}

/*
 * For settings_save() (MCUmgr's save): every key with a value goes to flash. Without this the
 * save writes nothing of ours and the board comes back blank from its reset.
 */
static int devicebench_export(int (*export_func)(const char *name, const void *val,
						 size_t val_len))
{
	const struct {
		const char *name;
		const void *value;
		size_t len;
	} keys[] = { /* in the order of their bits in `found` */
		{"devicebench/service_uuid", identity.service, 16},
		{"devicebench/psdi_service_uuid", identity.psdi_service, 16},
		{"devicebench/psdi_char_uuid", identity.psdi_characteristic, 16},
		{"devicebench/psdi", identity.psdi, strlen(identity.psdi)},
	};

	for (int i = 0; i < ARRAY_SIZE(keys); i++) {
		if (!(identity.found & BIT(i))) {
			continue;
		}
		int err = export_func(keys[i].name, keys[i].value, keys[i].len);

		if (err) {
			return err;
		}
	}
	return 0;
}

/* Keys devicebench/<name>; values written over MCUmgr count from the next boot, once saved. */
SETTINGS_STATIC_HANDLER_DEFINE(devicebench, "devicebench", devicebench_get, devicebench_set, NULL,
			       devicebench_export);

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
	int err = bt_le_adv_start(ADV_CONNECTABLE, ad, provisioned ? ARRAY_SIZE(ad) : 1, sd,
				  ARRAY_SIZE(sd));

	if (err && err != -EALREADY) {
		printk("advertising failed (%d)\n", err);
	}
}

#if RESUME_IN_RECYCLED
static void recycled(void)
{
	advertise();
}

BT_CONN_CB_DEFINE(conn_callbacks) = {
	.recycled = recycled,
};
#endif

int main(void)
{
	int err = bt_enable(NULL);

	if (err) {
		printk("Bluetooth failed to start (%d)\n", err);
		return 0;
	}
	/*
	 * The settings backend (NVS in the storage partition) exists once this ran: without it
	 * settings_load() finds nothing and MCUmgr's save writes nothing, with no error to either.
	 */
	err = settings_subsys_init();
	if (err) {
		printk("settings failed to start (%d)\n", err);
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
